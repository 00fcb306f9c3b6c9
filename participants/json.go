package participants

import (
	"time"
	"unicode/utf8"

	"github.com/trustframe/trustframe/store"
)

// List is the participants list. It writes its own JSON: at 100,000
// organisations the answer is about 100 MB, and reflection-based encoding
// was a third of the time of building it. The bytes are exactly those
// json.Marshal gives (TestParticipantsJSONIsEncodingJSON checks it field
// for field, so a field added to a type and not here fails it).
type List []store.Participant

// JSON is the list as JSON, written into one allocation of about its size.
func (l List) JSON() []byte { return l.AppendJSON(make([]byte, 0, l.sizeHint())) }

// AppendJSON appends the list as JSON.
func (l List) AppendJSON(b []byte) []byte {
	b = append(b, '[')
	for i := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendParticipant(b, &l[i])
	}
	return append(b, ']')
}

// sizeHint is about the length of l's JSON, a tenth more than an even
// sample of its participants gives, so that the answer is built in one
// allocation. Grown as it is written instead (a copy and fresh pages each
// time), it took a third of the first build at 100,000 organisations with
// claims (docs/benchmarks.md).
func (l List) sizeHint() int {
	const samples = 256
	if len(l) == 0 {
		return 2
	}
	step := max(1, len(l)/samples)
	var scratch []byte
	n, total := 0, 0
	for i := 0; i < len(l); i += step {
		scratch = appendParticipant(scratch[:0], &l[i])
		total += len(scratch) + 1
		n++
	}
	return total/n*len(l)*11/10 + 2
}

func appendParticipant(b []byte, p *store.Participant) []byte {
	b = appendOrgMembers(b, &p.Organisation)
	b = append(b, `,"AuthorisationServers":`...)
	b = appendList(b, p.AuthorisationServers, appendServer)
	b = append(b, `,"OrgDomainClaims":`...)
	b = appendList(b, p.OrgDomainClaims, appendDomainClaim)
	b = append(b, `,"OrgDomainRoleClaims":`...)
	b = appendList(b, p.OrgDomainRoleClaims, appendRoleClaim)
	return append(b, '}')
}

// AppendOrganisation appends o as JSON, byte for byte json.Marshal's
// (TestOrganisationJSONIsEncodingJSON), without reflection: the
// organisation point read, the API's hottest read, shares the list's
// encoder.
func AppendOrganisation(b []byte, o *store.Organisation) []byte {
	return append(appendOrgMembers(b, o), '}')
}

// appendOrgMembers appends the opening brace and the members of o.
func appendOrgMembers(b []byte, o *store.Organisation) []byte {
	b = appendField(b, `{"OrganisationId":`, o.OrganisationID)
	b = appendField(b, `,"OrganisationName":`, o.OrganisationName)
	b = appendField(b, `,"LegalEntityName":`, o.LegalEntityName)
	b = appendField(b, `,"RegistrationNumber":`, o.RegistrationNumber)
	b = appendField(b, `,"CountryOfRegistration":`, o.CountryOfRegistration)
	b = appendField(b, `,"AddressLine1":`, o.AddressLine1)
	b = appendField(b, `,"AddressLine2":`, o.AddressLine2)
	b = appendField(b, `,"City":`, o.City)
	b = appendField(b, `,"Postcode":`, o.Postcode)
	b = appendField(b, `,"Status":`, o.Status)
	if o.StatusReason != "" {
		b = appendField(b, `,"StatusReason":`, o.StatusReason)
	}
	b = append(b, `,"Flags":`...)
	b = appendStrings(b, o.Flags)
	b = append(b, `,"CreatedOn":`...)
	b = appendTime(b, o.CreatedOn)
	b = append(b, `,"UpdatedOn":`...)
	return appendTime(b, o.UpdatedOn)
}

// appendList appends l as a JSON array (null when nil), each item by each.
func appendList[T any](b []byte, l []T, each func([]byte, *T) []byte) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(b, &l[i])
	}
	return append(b, ']')
}

func appendServer(b []byte, s *store.AuthorisationServer) []byte {
	b = appendField(b, `{"AuthorisationServerId":`, s.AuthorisationServerID)
	b = appendField(b, `,"OrganisationId":`, s.OrganisationID)
	b = appendField(b, `,"CustomerFriendlyName":`, s.CustomerFriendlyName)
	b = appendField(b, `,"Description":`, s.Description)
	b = appendField(b, `,"Issuer":`, s.Issuer)
	if s.OpenIDDiscoveryDocument != "" { // omitempty, like the other answers (a URI is never "")
		b = appendField(b, `,"OpenIDDiscoveryDocument":`, s.OpenIDDiscoveryDocument)
	}
	b = appendField(b, `,"Status":`, s.Status)
	b = append(b, `,"Flags":`...)
	b = appendStrings(b, s.Flags)
	b = append(b, `,"CreatedOn":`...)
	b = appendTime(b, s.CreatedOn)
	b = append(b, `,"UpdatedOn":`...)
	b = appendTime(b, s.UpdatedOn)
	return append(b, '}')
}

func appendDomainClaim(b []byte, c *store.OrgDomainClaim) []byte {
	b = appendField(b, `{"AuthorisationDomainName":`, c.AuthorisationDomainName)
	b = appendField(b, `,"AuthorityName":`, c.AuthorityName)
	b = appendField(b, `,"RegistrationId":`, c.RegistrationID)
	b = appendField(b, `,"Status":`, c.Status)
	return append(b, '}')
}

func appendRoleClaim(b []byte, c *store.OrgDomainRoleClaim) []byte {
	b = appendField(b, `{"Status":`, c.Status)
	b = appendField(b, `,"AuthorisationDomain":`, c.AuthorisationDomain)
	b = appendField(b, `,"Role":`, c.Role)
	b = append(b, `,"Authorisations":`...)
	b = appendList(b, c.Authorisations, appendAuthorisation)
	b = appendField(b, `,"RegistrationId":`, c.RegistrationID)
	return append(b, '}')
}

func appendAuthorisation(b []byte, a *store.Authorisation) []byte {
	b = appendField(b, `{"Status":`, a.Status)
	b = appendField(b, `,"MemberState":`, a.MemberState)
	return append(b, '}')
}

// appendField appends a member with a string value; key holds the comma,
// the quoted name and the colon.
func appendField(b []byte, key, v string) []byte {
	b = append(b, key...)
	return appendString(b, v)
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
