// The calls the validator clients make (client.mjs on the TypeScript SDK 1.x,
// client2.mjs on @modelcontextprotocol/client 2.x): one good call of every
// read-only tool, and at least one bad call of every tool. Every listed tool
// must have its entries here, so a new tool cannot slip by.

import { randomUUID } from 'node:crypto';

// The note the read-only vault tools read (made by SETUP below).
export const probeNote = `validators-probe/${randomUUID()}.md`;

// CALLS: the arguments of one good call of every read-only tool, keyed by
// name, in call order (manual_hits needs the trace of manual_find). A
// read-only tool without an entry is a failure, so that a new tool gets an
// entry and is exercised. The manual arguments work on fixtures/manuals, the
// vault arguments on an empty vault plus the probe note.
export const CALLS = [
  ['list_languages', () => ({})],
  ['list_versions', () => ({ language: 'go' })],
  ['search_spec', () => ({ query: 'slice expressions' })],
  ['get_section', () => ({ language: 'go', section_id: 'Slice_expressions' })],
  ['build_learning_plan', () => ({ language: 'go' })],
  ['compare', () => ({ concept: 'integer overflow', also: ['wrap around'] })],
  ['spec_diff', () => ({ language: 'go' })],
  ['manual_list', () => ({})],
  ['manual_ls', () => ({ manual_id: 'ops-en' })],
  ['manual_toc', () => ({ manual_id: 'ops-en', path: 'runbooks/db/failover.md' })],
  ['manual_read', () => ({ manual_id: 'ops-en', path: 'runbooks/db/failover.md', scope: 'file' })],
  ['manual_excepts', () => ({ manual_id: 'ops-en', query: 'failover' })],
  ['manual_find', () => ({ manual_id: 'ops-en', query: 'failover' })],
  ['manual_hits', (state) => ({ trace_id: state.traceId ?? 'missing-manual_find-trace' })],
  ['vault_ls', () => ({})],
  ['vault_read', () => ({ path: probeNote })],
  ['vault_scan', () => ({ path: probeNote })],
  ['vault_coverage', () => ({ path: probeNote })],
  ['vault_search', () => ({ query: 'slice' })],
  ['vault_find', () => ({ query: 'slice expressions' })],
  ['artifact_audit', () => ({})],
  ['get-category-tools', () => ({ category: 'spec' })],
];

// NOT_CALLED: tools that write, and why they are not in the read-only sweep.
// Every listed tool must be in CALLS or here, so a new tool cannot slip by.
export const NOT_CALLED = {
  vault_create: 'writes (called once by SETUP to make the probe note)',
  vault_write: 'writes to the vault',
  vault_replace: 'writes to the vault',
  bridge_copy_file: 'copies a manual file into the vault',
  bridge_copy_section: 'copies a manual section into the vault',
  'call-category-tool': 'runs any tool of a category, writers included (categories mode)',
  batch: 'runs any tools of the categories, writers included (categories mode)',
};

// SETUP: calls made before the sweep, when the tool is listed.
export const SETUP = [['vault_create', () => ({ path: probeNote, content: '# Probe\nslice expressions, read by the validators\n' })]];

// INVALID_CALLS: bad calls, at least one of every tool (writers too: the
// arguments are refused before anything runs). Each is [tool, arguments,
// the argument the answer must name, what the answer must say is allowed].
// The answer must be a tool result, not a thrown error: isError set, text
// "invalid_argument: …; hint: …" naming the argument and what it takes.
export const INVALID_CALLS = [
  ['list_languages', { bogus: 1 }, 'bogus', /takes no arguments/],
  ['list_versions', {}, 'language', /language \(required\)/],
  ['search_spec', { query: 'slices', limit: 0 }, 'limit', /an integer from 1 to 50/],
  ['get_section', { language: 'go' }, 'section_id', /section_id \(required\)/],
  ['build_learning_plan', { language: 'go', total_weeks: 'two' }, 'total_weeks', /an integer from 1 to 12/],
  ['compare', { concept: 'integer overflow', also: 'wrap around' }, 'also', /an array of at most 4 items/],
  ['spec_diff', { language: 'go', limit: 500 }, 'limit', /an integer from 1 to 100/],
  ['manual_list', { bogus: true }, 'bogus', /takes no arguments/],
  ['manual_ls', {}, 'manual_id', /manual_id \(required\)/],
  ['manual_toc', { manual_id: 'ops-en' }, 'path', /path \(required\)/],
  ['manual_read', { manual_id: 'ops-en', path: 'runbooks/db/failover.md', scope: 'everything' }, 'scope', /one of "snippet", "section", "sections", "file"/],
  ['manual_excepts', { manual_id: 'ops-en', max_hits: 0 }, 'max_hits', /an integer from 1 to 500/],
  ['manual_find', { query: 'failover', intent: 'guess' }, 'intent', /one of "definition", "procedure", "exceptions", "compare", "lookup"/],
  ['manual_hits', {}, 'trace_id', /trace_id \(required\)/],
  ['vault_ls', { recursive: 'yes' }, 'recursive', /true or false/],
  ['vault_read', {}, 'path', /path \(required\)/],
  ['vault_scan', { path: 'notes/a.md', chunk_lines: 0 }, 'chunk_lines', /an integer from 1 to 1000/],
  ['vault_coverage', { path: 5 }, 'path', /a string/],
  ['vault_search', {}, 'query', /query \(required\)/],
  ['vault_find', { query: 'slices', budget: { time_ms: 0 } }, 'budget.time_ms', /an integer from 1 to 600000/],
  ['artifact_audit', { paths: 'artifacts/a.md' }, 'paths', /an array of at most 200 items/],
  ['vault_create', { path: 'notes/a.md' }, 'content', /content \(required\)/],
  ['vault_write', { path: 'notes/a.md', content: 'x', mode: 'prepend' }, 'mode', /one of "overwrite", "append"/],
  ['vault_replace', { path: 'notes/a.md', old: 'a', new: 'b', expected_count: 0 }, 'expected_count', /an integer from 1 to 1000000/],
  ['bridge_copy_file', { manual_id: 'ops-en' }, 'path', /path \(required\)/],
  ['bridge_copy_section', { manual_id: 'ops-en', path: 'runbooks/db/failover.md', start_line: 0 }, 'start_line', /an integer of at least 1/],
  // Categories mode.
  ['get-category-tools', {}, 'category', /category \(required\)/],
  ['call-category-tool', { category: 'spec', name: 'search_spec', args: 'slices' }, 'args', /args must be an object/],
  ['call-category-tool', { category: 'spec', name: 'search_spec', args: { query: 'slices', limit: 0 } }, 'limit', /an integer from 1 to 50/],
  ['batch', { tasks: 5 }, 'tasks', /a string of 1 to 1048576 characters/],
];
