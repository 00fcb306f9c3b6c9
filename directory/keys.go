package directory

import "time"

// SigningKey is a stored SSA signing key; PrivateEnc is encrypted.
type SigningKey struct {
	Kid       string     `json:"kid"`
	Alg       string     `json:"alg"`
	Status    string     `json:"Status"`
	CreatedAt time.Time  `json:"CreatedAt"`
	RetiredAt *time.Time `json:"RetiredAt,omitempty"`
	// MaySignFrom is a federation Next key's instant from which it may
	// sign, stored when it was prepared (docs/design.md §13); nil for SSA
	// keys, for keys made by an immediate rotation, and for a Next key
	// prepared before migration 0031.
	MaySignFrom *time.Time `json:"MaySignFrom,omitempty"`
	// Compromised is a federation key an emergency rotation retired (the
	// historical keys say it is revoked, docs/design.md §17); false for
	// SSA keys and for keys a staged rollover retired.
	Compromised bool   `json:"Compromised,omitempty"`
	PublicJWK   string `json:"-"`
	PrivateEnc  []byte `json:"-"`
}
