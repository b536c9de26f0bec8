package sentinel

// RunLogged is runLogged for the external tests (sentinel_test), which
// import packages that import this one.
var RunLogged = runLogged
