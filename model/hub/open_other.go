//go:build !unix

package hub

// openFlags is empty where there is no O_NONBLOCK; the mode check before the
// open is then the only guard against a FIFO.
const openFlags = 0
