package search

// GoSpecStore is goSpecStore for the package's external tests.
var GoSpecStore = goSpecStore
