package main

import (
	"flag"

	"membudget"
	"membudget/budget"
)

// kernelsFlag is --kernels DIR: a tree of <class>/HARDWARE.toml to read
// instead of the classes shipped in the binary.
type kernelsFlag struct{ dir string }

func (k *kernelsFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&k.dir, "kernels", "", "read device classes from `DIR`/<class>/HARDWARE.toml instead of the shipped ones")
}

func (k *kernelsFlag) catalog() budget.Catalog {
	if k.dir == "" {
		return membudget.Kernels()
	}
	return budget.DirCatalog(k.dir)
}
