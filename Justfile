# Recipes for langspec. `just` is optional: each recipe is one plain command.

# Build the langspec binary into ./bin.
build:
    go build -o bin/langspec ./cmd/langspec

# Run every test (the command CI runs, after vet and gofmt).
test:
    go test ./...

# Benchmarks behind the numbers in README.md (ingest and search of the Go spec).
bench:
    go test ./internal/ingest/ ./internal/search/ -run '^$' -bench . -benchmem -count 5

# Format check and vet, as CI does.
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./...
