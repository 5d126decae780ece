# membudget: make test is the test command that the README gives and .ci/run calls.
GO ?= go

.PHONY: test fmt-check vet unit

test: fmt-check vet unit

fmt-check:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt -l lists:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test ./...
