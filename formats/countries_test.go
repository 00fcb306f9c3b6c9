package formats

import "testing"

// TestValidCountryIsAnAssignedCode: only officially assigned ISO 3166-1
// alpha-2 codes pass, not any two capitals.
func TestValidCountryIsAnAssignedCode(t *testing.T) {
	for _, c := range []string{"GB", "BR", "AU", "NZ", "DE", "FR", "IE", "NL", "ES", "US", "AD", "ZW", "AX", "SS", "CW"} {
		if !ValidCountry(c) {
			t.Errorf("%s is assigned", c)
		}
	}
	// Two capitals that are not assigned codes: user-assigned (AA, QM–QZ,
	// XA–XZ, ZZ), exceptionally reserved (UK, EU), withdrawn (YU, AN).
	for _, c := range []string{"ZZ", "AA", "QZ", "XK", "XX", "UK", "EU", "YU", "AN", "gb", "G", "GBR", "", "G1"} {
		if ValidCountry(c) {
			t.Errorf("%q is not an assigned code", c)
		}
	}
	if n := len(countries); n != 249 {
		t.Errorf("%d codes; ISO 3166-1 assigns 249", n)
	}
}
