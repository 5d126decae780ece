//go:build unix

package hub

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer; a regular file reads the same with it.
const openFlags = syscall.O_NONBLOCK
