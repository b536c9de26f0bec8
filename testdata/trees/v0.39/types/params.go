package types

// The key types of v0.39.4's types/params.go, as names only.
const (
	ABCIPubKeyTypeEd25519   = "ed25519"
	ABCIPubKeyTypeSecp256k1 = "secp256k1"
	ABCIPubKeyTypeBls12381  = "bls12_381"
)
