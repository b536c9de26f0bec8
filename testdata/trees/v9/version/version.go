package version

const TMCoreSemVer = "9.1.0"
