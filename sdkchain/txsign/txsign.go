// Package txsign signs the chain's transactions with a raw secp256k1
// key, no keyring: SIGN_MODE_DIRECT over the body, the auth info (the
// signer's public key and sequence) and the chain id and account number,
// as the SDK's client/tx does.
package txsign

import (
	"context"
	"fmt"

	"github.com/cosmos/cosmos-sdk/client"
	clienttx "github.com/cosmos/cosmos-sdk/client/tx"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
)

// Signer signs transactions of one chain with a fixed gas limit and fee.
type Signer struct {
	TxConfig client.TxConfig
	ChainID  string
	Gas      uint64    // gas limit of each transaction
	Fee      sdk.Coins // fee of each transaction (nil for none)
}

// Sign returns the transaction of msgs signed by key as the account
// accNum at sequence seq.
func (s Signer) Sign(key *secp256k1.PrivKey, accNum, seq uint64, msgs ...sdk.Msg) (sdk.Tx, error) {
	b := s.TxConfig.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, fmt.Errorf("set messages: %w", err)
	}
	b.SetGasLimit(s.Gas)
	b.SetFeeAmount(s.Fee)
	mode := signing.SignMode_SIGN_MODE_DIRECT
	// The signer info (public key, mode, sequence) is part of the signed
	// auth info: set it with an empty signature first.
	empty := signing.SignatureV2{PubKey: key.PubKey(), Data: &signing.SingleSignatureData{SignMode: mode}, Sequence: seq}
	if err := b.SetSignatures(empty); err != nil {
		return nil, fmt.Errorf("set signer info: %w", err)
	}
	data := authsigning.SignerData{
		Address: sdk.AccAddress(key.PubKey().Address()).String(), ChainID: s.ChainID,
		AccountNumber: accNum, Sequence: seq, PubKey: key.PubKey(),
	}
	sig, err := clienttx.SignWithPrivKey(context.Background(), mode, data, b, key, s.TxConfig, seq)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	if err := b.SetSignatures(sig); err != nil {
		return nil, fmt.Errorf("set signature: %w", err)
	}
	return b.GetTx(), nil
}

// Encode returns tx's bytes as CometBFT carries them.
func (s Signer) Encode(tx sdk.Tx) ([]byte, error) {
	bz, err := s.TxConfig.TxEncoder()(tx)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return bz, nil
}
