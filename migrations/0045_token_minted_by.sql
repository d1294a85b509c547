-- Which token minted each token (a person's token minting an agent's pair through POST
-- /hooks/tokens, or a token for an agent or themselves on the console's token page): null for one
-- made on the machine (`doco token create`, `doco hooks install` with the home's credentials, a
-- console session opened by a `doco console` link). Revoking a leaked person token left alive
-- every token made with it, and nothing said which those were (a hostile review): the token page
-- now shows it, and revokes a token with what it minted when asked.

alter table doco.tokens add column minted_by text references doco.tokens(id);
create index tokens_minted_by on doco.tokens (minted_by) where minted_by is not null;

comment on column doco.tokens.minted_by is 'The token that minted this one (through the API or a console session made from it); null when made on the machine.';
