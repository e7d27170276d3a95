package core

// HTTPProbes lets the tests run the HTTP transport checks as a pack of their own.
var HTTPProbes = httpProbes
