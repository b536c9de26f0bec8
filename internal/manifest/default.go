package manifest

import "github.com/cometlab/cometlab/internal/shape"

// Default returns the built-in manifest: four validators of
// [DefaultCometBFTVersion] running the kvstore app, loaded by one connection
// at 200 tx/s of 1024-byte transactions for 60 s. A parsed file is decoded
// over it, so absent keys keep these values.
func Default() Manifest {
	return Manifest{
		Name:            "default",
		CometBFTVersion: DefaultCometBFTVersion,
		App:             AppKVStore,
		Validators:      4,
		LogLevel:        "state:info,*:error",
		Links:           LinksAuto,
		KeyType:         DefaultKeyType,
		Rotate:          ManifestRotate{Dwell: "10s"},
		Load: ManifestLoad{
			Connections:   1,
			Rate:          200,
			Size:          1024,
			Duration:      "60s",
			Pacing:        PacingEven,
			DrainTimeout:  "60s",
			LateThreshold: "10ms",
			Shape:         shape.Constant,
		},
	}
}
