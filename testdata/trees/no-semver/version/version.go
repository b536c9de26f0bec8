package version
