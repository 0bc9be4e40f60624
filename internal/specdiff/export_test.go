package specdiff

// Unmark reads a marked string back into its two sides, for the tests of
// package specdiff_test (see unmark).
func Unmark(marked string) (oldSide, newSide string, err error) { return unmark(marked) }
