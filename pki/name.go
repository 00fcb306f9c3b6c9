package pki

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// nameTypes are the attribute types --pki-name takes, by their RFC 4514
// short names (compared without case) and their object identifiers.
var nameTypes = []struct {
	short string
	oid   asn1.ObjectIdentifier
}{
	{"CN", asn1.ObjectIdentifier{2, 5, 4, 3}},
	{"C", asn1.ObjectIdentifier{2, 5, 4, 6}},
	{"L", asn1.ObjectIdentifier{2, 5, 4, 7}},
	{"ST", asn1.ObjectIdentifier{2, 5, 4, 8}},
	{"O", asn1.ObjectIdentifier{2, 5, 4, 10}},
	{"OU", asn1.ObjectIdentifier{2, 5, 4, 11}},
	{"organizationIdentifier", oidOrganizationIdentifier},
}

// ParseName reads an RFC 4514 distinguished name ("CN=Example Issuing
// CA,O=Example\, Ltd,C=GB") of the attribute types CN, O, OU, C, L, ST and
// organizationIdentifier (by name or dotted object identifier, any case).
// Values take RFC 4514's escapes: a backslash before one of the special
// characters (space " # + , ; < = > \) or before two hex digits (one byte
// of the value's UTF-8), and a value of "#" and hex digits is the BER of a
// string. Spaces around the separators are forgiven, as most tools write
// them. Every attribute is one RDN (a "+" joining two in one RDN is
// refused); the first in the string is the last of the name, as RFC 4514
// writes names. An error names what is wrong and where.
func ParseName(s string) (pkix.Name, error) {
	var n pkix.Name
	if strings.TrimSpace(s) == "" {
		return n, fmt.Errorf("the name is empty; write it as RFC 4514 says, e.g. CN=Example Issuing CA,O=Example,C=GB")
	}
	var atvs []pkix.AttributeTypeAndValue
	p := &nameParser{s: s}
	for {
		atv, err := p.attribute()
		if err != nil {
			return pkix.Name{}, err
		}
		atvs = append(atvs, atv)
		if p.i >= len(s) {
			break
		}
		switch s[p.i] {
		case ',', ';': // ; is RFC 1779's separator, still read by RFC 4514 parsers
			p.i++
		case '+':
			return pkix.Name{}, fmt.Errorf("at character %d: a multi-valued RDN (+) is not taken; give each attribute its own RDN, separated by commas", p.i+1)
		default:
			return pkix.Name{}, fmt.Errorf("at character %d: %q after a value; separate attributes with a comma", p.i+1, s[p.i])
		}
	}
	// RFC 4514 writes the last RDN of the sequence first.
	for i := len(atvs) - 1; i >= 0; i-- {
		atv := atvs[i]
		n.ExtraNames = append(n.ExtraNames, atv)
		v := atv.Value.(string)
		switch {
		case atv.Type.Equal(nameTypes[0].oid):
			n.CommonName = v
		case atv.Type.Equal(nameTypes[1].oid):
			n.Country = append(n.Country, v)
		case atv.Type.Equal(nameTypes[2].oid):
			n.Locality = append(n.Locality, v)
		case atv.Type.Equal(nameTypes[3].oid):
			n.Province = append(n.Province, v)
		case atv.Type.Equal(nameTypes[4].oid):
			n.Organization = append(n.Organization, v)
		case atv.Type.Equal(nameTypes[5].oid):
			n.OrganizationalUnit = append(n.OrganizationalUnit, v)
		}
	}
	return n, nil
}

type nameParser struct {
	s string
	i int
}

func (p *nameParser) skipSpaces() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// attribute reads type=value at p.i, leaving p.i at the separator after
// it (or the end).
func (p *nameParser) attribute() (pkix.AttributeTypeAndValue, error) {
	p.skipSpaces()
	start := p.i
	if p.i >= len(p.s) {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("at character %d: the name ends with a separator", p.i)
	}
	if strings.IndexByte(",;+", p.s[p.i]) >= 0 {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("at character %d: an empty attribute (two separators in a row)", p.i+1)
	}
	eq := strings.IndexByte(p.s[p.i:], '=')
	if eq < 0 {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("at character %d: %q has no '=': write type=value (e.g. CN=Example)", start+1, strings.TrimSpace(p.s[start:]))
	}
	typ := strings.TrimSpace(p.s[p.i : p.i+eq])
	p.i += eq + 1
	if typ == "" {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("at character %d: an attribute without a type before '='", start+1)
	}
	oid, name, err := attributeType(typ)
	if err != nil {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("at character %d: %w", start+1, err)
	}
	p.skipSpaces()
	var v string
	if p.i < len(p.s) && p.s[p.i] == '#' {
		v, err = p.hexValue()
	} else {
		v, err = p.stringValue()
	}
	if err != nil {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("%s: %w", name, err)
	}
	if v == "" {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("%s is empty", name)
	}
	if !utf8.ValidString(v) {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("%s: the escaped bytes are not UTF-8", name)
	}
	if name == "C" && (len(v) != 2 || strings.ToUpper(v) != v || strings.ContainsFunc(v, func(r rune) bool { return r < 'A' || r > 'Z' })) {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("the country (C) is %q: it is two capital letters of ISO 3166 (e.g. GB)", v)
	}
	if n := utf8.RuneCountInString(v); n > maxNameLen && name != "C" {
		return pkix.AttributeTypeAndValue{}, fmt.Errorf("%s has %d characters; RFC 5280 allows at most %d", name, n, maxNameLen)
	}
	return pkix.AttributeTypeAndValue{Type: oid, Value: v}, nil
}

// attributeType is the object identifier of a short name or a dotted
// one, and the name to say in errors.
func attributeType(typ string) (asn1.ObjectIdentifier, string, error) {
	for _, t := range nameTypes {
		if strings.EqualFold(typ, t.short) || typ == t.oid.String() {
			return t.oid, t.short, nil
		}
	}
	var names []string
	for _, t := range nameTypes {
		names = append(names, t.short)
	}
	return nil, "", fmt.Errorf("the attribute type %q is not taken; use %s", typ, strings.Join(names, ", "))
}

// stringValue reads an RFC 4514 string up to an unescaped separator;
// unescaped spaces at its end are dropped.
func (p *nameParser) stringValue() (string, error) {
	var b []byte
	keep := 0 // bytes of b that are not trailing unescaped spaces
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case ',', ';', '+':
			return string(b[:keep]), nil
		case '\\':
			if p.i+1 >= len(p.s) {
				return "", fmt.Errorf("at character %d: a backslash at the end; escape a backslash as \\\\", p.i+1)
			}
			next := p.s[p.i+1]
			if strings.IndexByte(` "#+,;<=>\`, next) >= 0 {
				b = append(b, next)
				p.i += 2
			} else if p.i+2 < len(p.s) && isHex(next) && isHex(p.s[p.i+2]) {
				x, _ := hex.DecodeString(p.s[p.i+1 : p.i+3])
				b = append(b, x[0])
				p.i += 3
			} else {
				return "", fmt.Errorf("at character %d: \\%c is no escape; RFC 4514 escapes a special character (space \" # + , ; < = > \\) or two hex digits", p.i+1, next)
			}
			keep = len(b)
			continue
		case '"', '<', '>', 0:
			return "", fmt.Errorf("at character %d: %q must be escaped with a backslash", p.i+1, c)
		}
		b = append(b, c)
		if c != ' ' {
			keep = len(b)
		}
		p.i++
	}
	return string(b[:keep]), nil
}

// hexValue reads "#" and hex digits: the BER of a string.
func (p *nameParser) hexValue() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.s) && isHex(p.s[p.i]) {
		p.i++
	}
	raw, err := hex.DecodeString(p.s[start+1 : p.i])
	p.skipSpaces()
	if err != nil || len(raw) == 0 {
		return "", fmt.Errorf("at character %d: #%s is not an even number of hex digits", start+1, p.s[start+1:p.i])
	}
	var v string
	rest, err := asn1.Unmarshal(raw, &v)
	if err != nil || len(rest) > 0 {
		return "", fmt.Errorf("at character %d: #%s is not the BER of one string", start+1, strings.TrimSpace(p.s[start+1:p.i]))
	}
	return v, nil
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}
