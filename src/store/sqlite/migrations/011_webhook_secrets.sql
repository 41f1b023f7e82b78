-- Each endpoint's webhook signing secret, sealed by the secrets box (src/services/secrets): the
-- database never sees it in plain text. Null until the endpoint has one (endpoints made before
-- this migration get theirs at their first delivery or when the owner asks for it).
ALTER TABLE endpoints ADD COLUMN sealed_webhook_secret TEXT;
