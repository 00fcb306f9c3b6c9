-- Covers the participants list's pass over every Active claim
-- (store/claims.go participantClaims): one sequential read of the index,
-- in organisation, domain and role order, no table lookups.
CREATE INDEX claims_participants ON organisation_authority_claims(status, organisation_id, domain, role, authority_id, registration_id, claim_id);
