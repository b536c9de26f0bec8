package types

// The key types of v0.40.0's types/params.go, as names only.
const (
	ABCIPubKeyTypeEd25519      = "ed25519"
	ABCIPubKeyTypeSecp256k1    = "secp256k1"
	ABCIPubKeyTypeBls12381     = "bls12_381"
	ABCIPubKeyTypeMlDsa65      = "ml_dsa_65"
	ABCIPubKeyTypeSecp256k1Eth = "secp256k1eth"
)
