import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The node's code runs one way: the node class hands execute to the router (actions/), each
 * operation module there wires the rooms below it. Sending (send/) and Get Status's lookups
 * (lookup/) go through the account's flow control (flow/), which reads the API's answers (api/);
 * Send Once's record (sendOnce/) is send/'s alone. Every room may import from shared/ (the
 * contracts and the helpers more than one room needs), and shared/ only from itself. The
 * credential may use shared/ too. Outside code, only n8n-workflow (n8n's rule for community nodes).
 */
const ROOT = path.join(__dirname, '..', '..');
const NODE_DIR = path.join(ROOT, 'nodes', 'TemplateMessage');
const ROOMS: Record<string, string[]> = {
	description: [],
	request: [],
	output: [],
	api: [],
	flow: ['api'],
	sendOnce: [],
	send: ['sendOnce', 'flow', 'api'],
	lookup: ['flow', 'api'],
};
const ROOM_NAMES = Object.keys(ROOMS);

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sources(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** Every module a file imports or re-exports from, type-only imports included. */
function importsOf(file: string): string[] {
	const text = readFileSync(file, 'utf8');
	return [...text.matchAll(/(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g)].map((match) => match[1]);
}

/** Where a file sits: 'node' (the node's own folder), 'actions', a room, 'shared' or 'credentials'. */
function layerOf(file: string): string {
	const relative = path.relative(NODE_DIR, file);
	if (relative.startsWith('..')) return path.relative(ROOT, file).split(path.sep)[0];
	const parts = relative.split(path.sep);
	return parts.length === 1 ? 'node' : parts[0];
}

const ALLOWED: Record<string, string[]> = {
	// The credential test is the node's method, so the class names it beside the router.
	node: ['node', 'actions', 'api', 'shared'],
	actions: ['actions', ...ROOM_NAMES, 'shared'],
	...Object.fromEntries(ROOM_NAMES.map((room) => [room, [room, ...ROOMS[room], 'shared']])),
	shared: ['shared'],
	credentials: ['credentials', 'shared'],
};

const files = [...sources(NODE_DIR), ...sources(path.join(ROOT, 'credentials'))];
const edges = new Map<string, string[]>(
	files.map((file) => [
		file,
		importsOf(file)
			.filter((spec) => spec.startsWith('.'))
			.map((spec) => `${path.resolve(path.dirname(file), spec)}.ts`),
	]),
);

test('the layers are the ones this test knows', () => {
	expect([...new Set(files.map(layerOf))].sort()).toEqual(['actions', 'credentials', 'node', ...ROOM_NAMES, 'shared'].sort());
});

test.each(files.map((file) => [path.relative(ROOT, file), file]))('%s imports only downwards, and from outside only n8n-workflow', (_, file) => {
	const layer = layerOf(file);
	const wrong = importsOf(file).filter((spec) => {
		if (!spec.startsWith('.')) return spec !== 'n8n-workflow';
		return !ALLOWED[layer].includes(layerOf(path.resolve(path.dirname(file), spec)));
	});
	expect(wrong).toEqual([]);
});

test('every relative import names a file that exists, and no file imports itself back', () => {
	for (const [file, targets] of edges) for (const target of targets) expect({ file, exists: edges.has(target) }).toEqual({ file, exists: true });
	const cycles: string[][] = [];
	const state = new Map<string, 'open' | 'done'>();
	const visit = (file: string, trail: string[]) => {
		if (state.get(file) === 'done') return;
		if (state.get(file) === 'open') {
			cycles.push(trail.slice(trail.indexOf(file)).map((one) => path.relative(ROOT, one)));
			return;
		}
		state.set(file, 'open');
		for (const target of edges.get(file) ?? []) visit(target, [...trail, target]);
		state.set(file, 'done');
	};
	for (const file of files) visit(file, [file]);
	expect(cycles).toEqual([]);
});

test("the unit tests' folders are the code's rooms", () => {
	const beyondRooms = ['browser', 'e2e', 'engine', 'helpers', 'package', 'sandbox'];
	const testFolders = readdirSync(path.join(ROOT, 'test'), { withFileTypes: true })
		.filter((entry) => entry.isDirectory() && !beyondRooms.includes(entry.name))
		.map((entry) => entry.name);
	const rooms = ['actions', ...ROOM_NAMES, 'shared'];
	expect(testFolders.filter((folder) => !rooms.includes(folder))).toEqual([]);
});
