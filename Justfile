# Recipes for langspec. `just` is optional: each recipe is one plain command.

# Build the langspec binary into ./bin.
build:
    go build -o bin/langspec ./cmd/langspec

# Run every test (the command CI runs, after vet and gofmt).
test:
    go test ./...

# Benchmarks behind the numbers in docs/performance.md (ingest, search, the MCP server),
# without the scale ones below. BenchmarkServeVsEcho needs Node.js (npx) or
# LANGSPEC_EVERYTHING pointing at mcp-server-everything.
bench:
    go test ./internal/ingest/ ./internal/search/ ./internal/eval/ ./internal/manual/find/ ./internal/tools/ ./cmd/langspec/ -run '^$' -bench '^Benchmark(Ingest|Parse|ReadMdBook|ReadMarkdownFolder|ManualFind100|Search|SpecSearch|Serve)' -benchmem -count 3

# The scale benchmarks: a generated 50,000-section corpus (80 MB, written at
# test time) searched beside the Go spec and ingested by the real binary, and
# manual_find over 5,000 files. Several minutes; LANGSPEC_SCALE_SECTIONS and
# LANGSPEC_SCALE_MANUAL_FILES try smaller sizes.
bench-scale:
    go test ./internal/eval/ ./cmd/langspec/ ./internal/manual/find/ -run '^$' -bench 'Scale|ManualFind5000' -benchtime 20x

# The curve of docs/performance.md: search and ingest at 50,000, 200,000
# and 1,000,000 sections (1.6 GB of text at the last; about half an hour
# in all on 2 cores), then 32 clients against the team server at 200,000.
bench-curve:
    for n in 50000 200000 1000000; do \
        LANGSPEC_SCALE_SECTIONS=$n go test ./internal/eval/ -run '^$' -bench ScaleSearch -benchtime 200x -timeout 2h; \
        LANGSPEC_SCALE_SECTIONS=$n go test ./cmd/langspec/ -run '^$' -bench ScaleIngest -benchtime 1x -timeout 2h; \
    done
    LANGSPEC_SCALE_SECTIONS=200000 go test ./cmd/langspec/ -run '^$' -bench TeamServerConcurrent -benchtime 1x

# The official MCP Inspector (CLI mode, from npm) against the built binary:
# list the tools, then call search_spec. Needs Node.js and the npm registry.
inspect: build
    npx -y @modelcontextprotocol/inspector@2.12.0 --cli ./bin/langspec serve --method tools/list
    npx -y @modelcontextprotocol/inspector@2.12.0 --cli ./bin/langspec serve --method tools/call --tool-name search_spec --tool-arg 'query=slice expressions' --tool-arg limit=2
    npx -y @modelcontextprotocol/inspector@2.12.0 --cli ./bin/langspec serve --tools categories --method tools/list

# Format check and vet, as CI does.
lint:
    test -z "$(gofmt -l $(git ls-files '*.go'))"
    go vet ./...
