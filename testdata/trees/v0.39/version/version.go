package version

const (
	// TMCoreSemVer is the fallback version.
	TMCoreSemVer = "0.39.4"
)
