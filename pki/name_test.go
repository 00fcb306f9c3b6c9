package pki_test

import (
	"crypto/x509/pkix"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/pki"
)

// rdns is the name's RDN sequence as type=value strings, in the order of
// the encoded name (the reverse of RFC 4514's string).
func rdns(n pkix.Name) []string {
	var out []string
	for _, rdn := range n.ToRDNSequence() {
		for _, a := range rdn {
			out = append(out, a.Type.String()+"="+a.Value.(string))
		}
	}
	return out
}

func TestParseNameReadsTheTypesInOrder(t *testing.T) {
	n, err := pki.ParseName("CN=Example Issuing CA, OU=PKI,O=Example Ltd,organizationIdentifier=PSDGB-FCA-123456,L=London,ST=England,C=GB")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2.5.4.6=GB", "2.5.4.8=England", "2.5.4.7=London", "2.5.4.97=PSDGB-FCA-123456", "2.5.4.10=Example Ltd", "2.5.4.11=PKI", "2.5.4.3=Example Issuing CA"}
	if got := rdns(n); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("RDNs %v\nwant %v", got, want)
	}
	if n.CommonName != "Example Issuing CA" || n.Organization[0] != "Example Ltd" || n.Country[0] != "GB" || n.OrganizationalUnit[0] != "PKI" || n.Locality[0] != "London" || n.Province[0] != "England" {
		t.Fatalf("%+v", n)
	}
	// pkix.Name.String writes RFC 4514 back: a round trip.
	if back, err := pki.ParseName(n.String()); err != nil || back.String() != n.String() {
		t.Fatalf("round trip of %s: %s %v", n.String(), back.String(), err)
	}
}

func TestParseNameTypesAnyCaseAndByOID(t *testing.T) {
	n, err := pki.ParseName("cn=a,2.5.4.10=b,ORGANIZATIONIDENTIFIER=c")
	if err != nil {
		t.Fatal(err)
	}
	if n.CommonName != "a" || n.Organization[0] != "b" || rdns(n)[0] != "2.5.4.97=c" {
		t.Fatalf("%v", rdns(n))
	}
}

func TestParseNameEscapes(t *testing.T) {
	for in, want := range map[string]string{
		`CN=Example\, Ltd`:              "Example, Ltd",
		`CN=a\+b\;c\<d\>e\=f\"g\\h`:     `a+b;c<d>e=f"g\h`,
		`CN=\#hash`:                     "#hash",
		`CN=\ lead and trail\ `:         " lead and trail ",
		`CN=caf\C3\A9`:                  "café",
		`CN=  spaces around   ,O=x`:     "spaces around",
		`CN=#0c0548656c6c6f`:            "Hello", // UTF8String, BER
		`CN=#130548656c6c6f`:            "Hello", // PrintableString
		`CN=a=b`:                        "a=b",
		"CN=Zürich CA":                  "Zürich CA",
		`CN=x;O=y`:                      "x",
		`CN=Issuing CA\0D\0Aline`:       "Issuing CA\r\nline",
		`CN=` + strings.Repeat("x", 64): strings.Repeat("x", 64),
	} {
		n, err := pki.ParseName(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if n.CommonName != want {
			t.Errorf("%s: CN %q, want %q", in, n.CommonName, want)
		}
	}
}

func TestParseNameErrorsNameTheProblem(t *testing.T) {
	for in, want := range map[string]string{
		"":                                "empty",
		"   ":                             "empty",
		"Example CA":                      `"Example CA" has no '='`,
		"CN=a,Example":                    `"Example" has no '='`,
		"=x":                              "without a type",
		"E=admin@example.org":             `attribute type "E" is not taken; use CN, C, L, ST, O, OU, organizationIdentifier`,
		"CN=":                             "CN is empty",
		"CN=a,O=":                         "O is empty",
		"CN=a+O=b":                        "multi-valued RDN (+)",
		`CN=a\`:                           "a backslash at the end",
		`CN=a\q`:                          `\q is no escape`,
		`CN=a\4`:                          `\4 is no escape`,
		`CN=a"b`:                          `'"' must be escaped`,
		`CN=a<b`:                          `'<' must be escaped`,
		"C=gb":                            `the country (C) is "gb": it is two capital letters`,
		"C=GBR":                           `the country (C) is "GBR"`,
		"CN=" + strings.Repeat("x", 65):   "CN has 65 characters; RFC 5280 allows at most 64",
		`CN=#0c05`:                        "not the BER of one string",
		`CN=#0c0548656c6c6`:               "not an even number of hex digits",
		`CN=#0c0548656c6c6f x`:            "after a value",
		`CN=\FF\FE`:                       "not UTF-8",
		"CN=a,,O=b":                       "at character 6: an empty attribute",
		"CN=a,":                           "ends with a separator",
		"O=" + strings.Repeat("é", 65):    "O has 65 characters",
		"OU=x,ST=y,L=z,CN=ok,C=GB,XX=bad": `"XX" is not taken`,
	} {
		_, err := pki.ParseName(in)
		if err == nil {
			t.Errorf("%q: no error, want one saying %q", in, want)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %q does not say %q", in, err, want)
		}
	}
}

func TestParseNameErrorsSayWhere(t *testing.T) {
	_, err := pki.ParseName(`CN=ok,O=a\qb`)
	if err == nil || !strings.Contains(err.Error(), "at character 10") {
		t.Fatalf("%v", err)
	}
}
