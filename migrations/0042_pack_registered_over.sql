-- How a docs pack was registered: by a person over REST, or by a NATS message, which names no
-- sender. Over NATS, a code a person registered cannot be unregistered: an unregistration then a
-- registration at another host moved a person's pack to a host of the publisher's choosing, whose
-- sections then stood as architecture principles in every brief (a hostile review). Packs
-- registered before this are taken as a person's: only a person's DELETE removes them.
alter table doco.docs_packs add column registered_over text not null default 'rest'
  check (registered_over in ('rest', 'nats'));
comment on column doco.docs_packs.registered_over is 'rest: a person registered it (POST /system/docs/packs), and only a person unregisters it; nats: a service message did.';
