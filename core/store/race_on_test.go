//go:build race

package store

// The race detector multiplies memory use: peak memory is not measured.
const raceEnabled = true
