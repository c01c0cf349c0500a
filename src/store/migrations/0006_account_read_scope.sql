-- account:read is new: reading the account, its schema and its audit log needed no scope before.
-- A key that may change the account (account:write, which every full-scope key holds) keeps
-- reading it; keys without account:write do not gain it.
UPDATE api_keys
   SET scopes = array_append(scopes, 'account:read')
 WHERE scopes IS NOT NULL
   AND 'account:write' = ANY (scopes)
   AND NOT ('account:read' = ANY (scopes));
