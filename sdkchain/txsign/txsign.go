// Package txsign signs the chain's transactions with a raw secp256k1
// key, no keyring: SIGN_MODE_DIRECT over the body, the auth info (the
// signer's public key and sequence) and the chain id and account number,
// as the SDK's client/tx SignWithPrivKey does, with the public key
// computed once per key.
package txsign

import (
	"context"
	"fmt"
	"time"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
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

// Key is a signing key with its public key and address computed once
// (secp256k1's PubKey multiplies a point each time it is called).
type Key struct {
	Priv    *secp256k1.PrivKey
	Pub     cryptotypes.PubKey
	Address sdk.AccAddress
	bech32  string
}

// NewKey returns priv's Key.
func NewKey(priv *secp256k1.PrivKey) Key {
	pub := priv.PubKey()
	addr := sdk.AccAddress(pub.Address())
	return Key{Priv: priv, Pub: pub, Address: addr, bech32: addr.String()}
}

// Sign returns the transaction of msgs signed by key as the account
// accNum at sequence seq.
func (s Signer) Sign(key Key, accNum, seq uint64, msgs ...sdk.Msg) (sdk.Tx, error) {
	return s.sign(key, accNum, seq, time.Time{}, msgs)
}

// SignUnordered returns the unordered transaction (ADR-070, SDK v0.53
// on) of msgs signed by key as the account accNum: no sequence (0), and
// timeout, which must be unique among the account's transactions (the
// chain keeps each sender's timeouts as nonces until they pass) and at
// most the chain's maximum (10 min by default) past the block time.
func (s Signer) SignUnordered(key Key, accNum uint64, timeout time.Time, msgs ...sdk.Msg) (sdk.Tx, error) {
	if timeout.IsZero() {
		return nil, fmt.Errorf("an unordered transaction needs a timeout")
	}
	return s.sign(key, accNum, 0, timeout, msgs)
}

// sign signs msgs; a zero timeout makes an ordered transaction.
func (s Signer) sign(key Key, accNum, seq uint64, timeout time.Time, msgs []sdk.Msg) (sdk.Tx, error) {
	b := s.TxConfig.NewTxBuilder()
	if err := b.SetMsgs(msgs...); err != nil {
		return nil, fmt.Errorf("set messages: %w", err)
	}
	b.SetGasLimit(s.Gas)
	b.SetFeeAmount(s.Fee)
	if !timeout.IsZero() {
		b.SetUnordered(true)
		b.SetTimeoutTimestamp(timeout)
	}
	mode := signing.SignMode_SIGN_MODE_DIRECT
	// The signer info (public key, mode, sequence) is part of the signed
	// auth info: set it with an empty signature first.
	sig := signing.SignatureV2{PubKey: key.Pub, Data: &signing.SingleSignatureData{SignMode: mode}, Sequence: seq}
	if err := b.SetSignatures(sig); err != nil {
		return nil, fmt.Errorf("set signer info: %w", err)
	}
	data := authsigning.SignerData{Address: key.bech32, ChainID: s.ChainID, AccountNumber: accNum, Sequence: seq, PubKey: key.Pub}
	bz, err := authsigning.GetSignBytesAdapter(context.Background(), s.TxConfig.SignModeHandler(), mode, data, b.GetTx())
	if err != nil {
		return nil, fmt.Errorf("sign bytes: %w", err)
	}
	raw, err := key.Priv.Sign(bz)
	if err != nil {
		return nil, fmt.Errorf("sign: %w", err)
	}
	sig.Data = &signing.SingleSignatureData{SignMode: mode, Signature: raw}
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
