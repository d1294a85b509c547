-- Touch evidence by where the text names it (issue 27): a path named in prose or a heading is
-- strong evidence that a record bears on the file; one named only among links (a Markdown link
-- reference definition nothing in the prose uses, a list of links, a References or See also
-- section) is weak. sql/touches.sql derives it; rows stored before this migration read as strong
-- until the derivation catch-up re-derives them (sql/derivations.sql, migration 0023).
alter table doco.touches add column links_only boolean not null default false;
comment on column doco.touches.links_only is
  'True when the record names the value only among its links (a reference definition its prose does not use, a list of links, a references section); false when its prose, a heading or its body names it.';
