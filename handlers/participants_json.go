package handlers

import (
	"time"
	"unicode/utf8"

	"github.com/trustframe/trustframe/store"
)

// participantList is the participants answer. It writes its own JSON: at
// 100,000 organisations the answer is about 100 MB, and reflection-based
// encoding was a third of the time of building it. The bytes are exactly
// those json.Marshal gives (TestParticipantsJSONIsEncodingJSON checks it
// field for field, so a field added to a type and not here fails it).
type participantList []store.Participant

// appendJSON appends the list as JSON.
func (l participantList) appendJSON(b []byte) []byte {
	b = append(b, '[')
	for i := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendParticipant(b, &l[i])
	}
	return append(b, ']')
}

func appendParticipant(b []byte, p *store.Participant) []byte {
	o := &p.Organisation
	b = append(b, `{"OrganisationId":`...)
	b = appendString(b, o.OrganisationID)
	b = append(b, `,"OrganisationName":`...)
	b = appendString(b, o.OrganisationName)
	b = append(b, `,"LegalEntityName":`...)
	b = appendString(b, o.LegalEntityName)
	b = append(b, `,"RegistrationNumber":`...)
	b = appendString(b, o.RegistrationNumber)
	b = append(b, `,"CountryOfRegistration":`...)
	b = appendString(b, o.CountryOfRegistration)
	b = append(b, `,"AddressLine1":`...)
	b = appendString(b, o.AddressLine1)
	b = append(b, `,"AddressLine2":`...)
	b = appendString(b, o.AddressLine2)
	b = append(b, `,"City":`...)
	b = appendString(b, o.City)
	b = append(b, `,"Postcode":`...)
	b = appendString(b, o.Postcode)
	b = append(b, `,"Status":`...)
	b = appendString(b, o.Status)
	b = append(b, `,"Flags":`...)
	b = appendStrings(b, o.Flags)
	b = append(b, `,"CreatedOn":`...)
	b = appendTime(b, o.CreatedOn)
	b = append(b, `,"UpdatedOn":`...)
	b = appendTime(b, o.UpdatedOn)
	b = append(b, `,"AuthorisationServers":`...)
	if p.AuthorisationServers == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.AuthorisationServers {
			if i > 0 {
				b = append(b, ',')
			}
			s := &p.AuthorisationServers[i]
			b = append(b, `{"AuthorisationServerId":`...)
			b = appendString(b, s.AuthorisationServerID)
			b = append(b, `,"OrganisationId":`...)
			b = appendString(b, s.OrganisationID)
			b = append(b, `,"CustomerFriendlyName":`...)
			b = appendString(b, s.CustomerFriendlyName)
			b = append(b, `,"Description":`...)
			b = appendString(b, s.Description)
			b = append(b, `,"Issuer":`...)
			b = appendString(b, s.Issuer)
			if s.OpenIDDiscoveryDocument != "" { // omitempty, like the other answers (a URI is never "")
				b = append(b, `,"OpenIDDiscoveryDocument":`...)
				b = appendString(b, s.OpenIDDiscoveryDocument)
			}
			b = append(b, `,"Status":`...)
			b = appendString(b, s.Status)
			b = append(b, `,"Flags":`...)
			b = appendStrings(b, s.Flags)
			b = append(b, `,"CreatedOn":`...)
			b = appendTime(b, s.CreatedOn)
			b = append(b, `,"UpdatedOn":`...)
			b = appendTime(b, s.UpdatedOn)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"OrgDomainClaims":`...)
	if p.OrgDomainClaims == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.OrgDomainClaims {
			if i > 0 {
				b = append(b, ',')
			}
			c := &p.OrgDomainClaims[i]
			b = append(b, `{"OrganisationAuthorityDomainClaimId":`...)
			b = appendString(b, c.OrganisationAuthorityDomainClaimID)
			b = append(b, `,"AuthorisationDomainName":`...)
			b = appendString(b, c.AuthorisationDomainName)
			b = append(b, `,"AuthorityId":`...)
			b = appendString(b, c.AuthorityID)
			b = append(b, `,"AuthorityName":`...)
			b = appendString(b, c.AuthorityName)
			b = append(b, `,"RegistrationId":`...)
			b = appendString(b, c.RegistrationID)
			b = append(b, `,"Status":`...)
			b = appendString(b, c.Status)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"OrgDomainRoleClaims":`...)
	if p.OrgDomainRoleClaims == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.OrgDomainRoleClaims {
			if i > 0 {
				b = append(b, ',')
			}
			c := &p.OrgDomainRoleClaims[i]
			b = append(b, `{"OrganisationId":`...)
			b = appendString(b, c.OrganisationID)
			b = append(b, `,"OrganisationAuthorityClaimId":`...)
			b = appendString(b, c.OrganisationAuthorityClaimID)
			b = append(b, `,"AuthorityId":`...)
			b = appendString(b, c.AuthorityID)
			b = append(b, `,"Status":`...)
			b = appendString(b, c.Status)
			b = append(b, `,"AuthorisationDomain":`...)
			b = appendString(b, c.AuthorisationDomain)
			b = append(b, `,"Role":`...)
			b = appendString(b, c.Role)
			b = append(b, `,"Authorisations":`...)
			if c.Authorisations == nil {
				b = append(b, "null"...)
			} else {
				b = append(b, '[')
				for j, a := range c.Authorisations {
					if j > 0 {
						b = append(b, ',')
					}
					b = append(b, `{"Status":`...)
					b = appendString(b, a.Status)
					b = append(b, `,"MemberState":`...)
					b = appendString(b, a.MemberState)
					b = append(b, '}')
				}
				b = append(b, ']')
			}
			b = append(b, `,"RegistrationId":`...)
			b = appendString(b, c.RegistrationID)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendStrings(b []byte, l []string) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendTime is time.Time's MarshalJSON: RFC 3339 with nanoseconds.
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does: HTML-safe (<, >, & as
// \u003c …), U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
