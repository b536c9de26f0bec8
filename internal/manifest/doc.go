// Package manifest owns cometlab's TOML manifest: the file a user writes to
// describe a testnet (nodes, CometBFT versions, config.toml overrides) and the
// load driven into it (connections c, rate r, transaction size s, duration T).
//
// There are two types, as in CometBFT's e2e runner:
//
//   - [Manifest] is what the user writes. Every key is optional; [Default]
//     is the built-in default and a file is decoded over it. Decoding is
//     strict: an unknown key, a value of the wrong type or a TOML syntax
//     error is an error naming file, line, column and key.
//   - [Resolved] is the testnet and load that will run: every default
//     applied, nodes expanded and ordered, durations parsed, config
//     overrides flattened to dotted keys. [Manifest.Resolve] produces it;
//     [Manifest.Validate] reports every problem at once (joined with
//     [errors.Join]), each one an [*Error] naming the file, line and key —
//     or the command-line flag, when the value came from [Manifest.Apply].
//
// [Manifest.Set] sets one setting named by its key from its text (a sweep's
// --set KEY=V1,V2); [SettableKey] lists which keys it takes. [ParseRate]
// reads a rate as people write it ("400/s", "24000/m").
//
// [Encode] writes a Resolved back as TOML (the run directory's
// manifest.toml); parsing that file resolves to the same Resolved.
//
// The usual sequence is:
//
//	m, err := manifest.Load(path)      // or manifest.Default()
//	err = m.Apply(overridesFromFlags)  // flags win over the file
//	r, err := m.Resolve()              // every problem at once
//	data, err := manifest.Encode(r)    // saved as runs/<id>/manifest.toml
//
// [ManifestZones] ([zones]) gives each node a zone and the latency matrix
// between zones (CometBFT's AWS matrix or the user's CSV); Resolve reads
// the matrix and checks every node's zone against it.
//
// topology says how the nodes find each other ([TopologyMesh],
// [TopologySeeds], [TopologyAsWritten]); Resolve fills each node's Seeds
// and PersistentPeers outside the mesh (topology.go).
//
// The package does no I/O besides [Load] reading the file and Resolve
// reading the files the manifest names (a trace, transactions, a matrix).
package manifest
