/**
 * The README says what the package does: its worked examples show what the example files really
 * send, and its troubleshooting table quotes messages the node really shows (docs/errors.md, which
 * test/output/messages.test.ts generates from the node's code).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { INodeProperties } from 'n8n-workflow';
import path from 'node:path';

import { startApiServer } from '../helpers/apiServer';
import { resetDeduplicationStore } from '../helpers/deduplicationStore';
import type { WorkflowJson } from '../helpers/engine';
import { CREDENTIAL_TYPE, PACKAGE_ROOT, runWorkflow, TEST_TOKEN } from '../helpers/engine';

const readme = readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');

/** The text of a `## title` section, up to the next `## `. */
function section(title: string): string {
	const start = readme.indexOf(`\n## ${title}\n`);
	expect(start).toBeGreaterThan(-1);
	const end = readme.indexOf('\n## ', start + 1);
	return readme.slice(start, end === -1 ? undefined : end);
}

/** Each `### ` part of the worked examples that names a file in examples/, with the JSON it shows. */
function workedExamples(): Array<{ title: string; file: string; shown: unknown[] }> {
	return section('Worked examples')
		.split('\n### ')
		.slice(1)
		.flatMap((part) => {
			const file = /\(examples\/([\w-]+\.json)\)/.exec(part)?.[1];
			if (!file) return [];
			const blocks = [...part.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]);
			const inline = [...part.matchAll(/`(\{\s*"[^`]*\})`/g)].map((match) => match[1]).filter((text) => !text.includes('…'));
			return [{ title: part.split('\n')[0], file, shown: [...blocks, ...inline].map((text) => JSON.parse(text) as unknown) }];
		});
}

/** Whether `part` equals `whole` or any value nested in it. */
function contains(whole: unknown, part: unknown): boolean {
	if (JSON.stringify(whole) === JSON.stringify(part)) return true;
	return typeof whole === 'object' && whole !== null && Object.values(whole).some((value) => contains(value, part));
}

test('the worked examples that name a file show JSON, every piece of which that file sends', () => {
	const examples = workedExamples();
	expect(examples.map(({ file }) => file)).toEqual(expect.arrayContaining(['manual-rows.json', 'webhook-order-confirmation.json']));
	for (const { title, shown } of examples) expect({ title, shown: shown.length }).not.toEqual({ title, shown: 0 });
});

test.each(workedExamples().map((example) => [example.title, example] as const))('worked example "%s" is what its file sends', async (_title, { file, shown }) => {
	resetDeduplicationStore();
	const workflow = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'examples', file), 'utf8')) as WorkflowJson;
	const api = await startApiServer();
	try {
		await runWorkflow(workflow, { [CREDENTIAL_TYPE]: { baseUrl: api.baseUrl, token: TEST_TOKEN } });
		const sent = api.requests.map((request) => request.body);
		for (const piece of shown) expect({ piece, found: sent.some((body) => contains(body, piece)) }).toEqual({ piece, found: true });
	} finally {
		await api.close();
	}
});

/**
 * A message as a pattern: the item number, numbers, quoted values, an elided part (…) and the
 * API's own reason (after "): " in a refusal) stand for anything.
 */
function pattern(message: string): RegExp {
	const wild = '\u0000';
	const marked = message
		.replace(/^(The API refused the message \(HTTP \d+\)): .*?( \(code \d+\))?( \[item \d+\])?$/, `$1: ${wild}$2$3`)
		.replace(/"[^"]*"/g, wild)
		.replace(/…/g, wild)
		.replace(/\d+/g, wild);
	const source = marked
		.split(wild)
		.map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
		.join('.*');
	return new RegExp(`^${source}$`);
}

test('every message of the troubleshooting table is one the node shows (docs/errors.md)', () => {
	const quoted = (text: string) => [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
	const shown = quoted(readFileSync(path.join(PACKAGE_ROOT, 'docs', 'errors.md'), 'utf8').replace(/^\| [^|`]+ \| (`[^`]+`) \|/gm, '| $1 |'));
	const troubleshooting = quoted(section('Troubleshooting'));
	expect(troubleshooting.length).toBeGreaterThan(5);
	expect(shown.length).toBeGreaterThan(40);
	const unknown = troubleshooting.filter((message) => !shown.some((known) => pattern(message).test(known)));
	expect(unknown).toEqual([]);
});

describe('the README a user reads top to bottom', () => {
	const lines = readme.split('\n');
	const tableRows = (title: string) => [...section(title).matchAll(/^\| ([^|]+?) \|/gm)].map((match) => match[1]);

	test("Quick start gives what a credential or a node made by hand needs: the sandbox's address, token and templates", () => {
		const { DEFAULT_TOKEN } = require(path.join(PACKAGE_ROOT, 'sandbox', 'server.js')) as { DEFAULT_TOKEN: string };
		const { TEMPLATES } = require(path.join(PACKAGE_ROOT, 'sandbox', 'templates.js')) as { TEMPLATES: Record<string, unknown> };
		const quickStart = section('Quick start').replace(/\s+/g, ' ');
		expect(quickStart).toContain(`Base URL \`http://127.0.0.1:5680\` and JWT \`${DEFAULT_TOKEN}\``);
		expect(Object.keys(TEMPLATES).filter((code) => !quickStart.includes(`\`${code}\``))).toEqual([]);
	});

	test("Output states the columns' order as the node keeps it", () => {
		const { SEND_COLUMNS, sendColumnsOf } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'output', 'rows.js')) as { SEND_COLUMNS: string[]; sendColumnsOf(typeVersion: number): string[] };
		const stated = section('Output').replace(/\s+/g, ' ');
		const [first, rest, version1] = /always in the same column order: (.*?), then the rest \((.*?); nodes saved with 0\.1\.0 also keep (.*?)\)/.exec(stated)!.slice(1);
		const named = (text: string) => [...text.matchAll(/`(\w+)`/g)].map((match) => match[1]);
		expect(named(first)).toEqual(SEND_COLUMNS.slice(0, named(first).length));
		const restAt = named(rest).map((column) => SEND_COLUMNS.indexOf(column));
		expect(restAt.every((at) => at >= named(first).length)).toBe(true);
		expect(restAt).toEqual([...restAt].sort((a, b) => a - b));
		expect(named(version1)).toEqual(sendColumnsOf(1).filter((column) => !SEND_COLUMNS.includes(column)));
	});

	test('stays within 300 lines', () => {
		expect(lines.length).toBeLessThanOrEqual(300);
	});

	test("its Options table has a row for every option of the node, in the node's order, and nothing else", () => {
		const { properties: messageProperties } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'actions', 'router.js')) as { properties: INodeProperties[] };
		const options = messageProperties.find((property) => property.name === 'options')!.options as INodeProperties[];
		const table = section("The node's fields").slice(section("The node's fields").indexOf('### Options'));
		const rows = [...table.matchAll(/^\| ([^|]+?) \|/gm)].map((match) => match[1]).filter((name) => name !== 'Option' && !/^-+$/.test(name));
		expect(rows).toEqual(options.map((option) => option.displayName));
		// Its Default column says each option's default as the node has it.
		const stated = [...table.matchAll(/^\| ([^|]+?) \| ([^|]+?) \|/gm)].filter(([, name]) => name !== 'Option' && !/^-+$/.test(name)).map(([, , given]) => given);
		const shown = (option: INodeProperties) => {
			if (option.type === 'boolean') return [option.default ? 'on' : 'off'];
			if (option.default === '') return ['–'];
			const choice = (option.options as Array<{ name: string; value: unknown }> | undefined)?.find((entry) => entry.value === option.default);
			return choice ? [`\`${String(choice.value)}\``, `\`${choice.name}\``, choice.name.toLowerCase()] : [String(option.default)];
		};
		expect(options.map((option, index) => ({ option, given: stated[index] })).filter(({ option, given }) => !shown(option).includes(given)).map(({ option, given }) => `${option.displayName}: ${given}`)).toEqual([]);
	});

	test("its fields table names every field of the Send operation", () => {
		const { properties: messageProperties } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'actions', 'router.js')) as { properties: INodeProperties[] };
		const named = tableRows("The node's fields").join(' ');
		const fields = messageProperties.filter((property) => property.type !== 'notice' && property.name !== 'options' && property.name !== 'operation');
		const missing = [...new Set(fields.map((field) => field.displayName))].filter((name) => !named.includes(name) && !section("The node's fields").includes(`*${name}*`));
		expect(missing).toEqual([]);
	});

	test('it presents every operation by its name in the editor', () => {
		const { properties: messageProperties } = require(path.join(PACKAGE_ROOT, 'dist', 'nodes', 'TemplateMessage', 'actions', 'router.js')) as { properties: INodeProperties[] };
		const operations = messageProperties.find((property) => property.name === 'operation')!.options as Array<{ name: string }>;
		expect(operations.map(({ name }) => name).filter((name) => !readme.includes(`**${name}**`))).toEqual([]);
	});
});

describe('every link leads somewhere that exists', () => {
	const manifest = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { name: string; repository: { url: string } };
	const repository = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
	const npmPage = `https://www.npmjs.com/package/${manifest.name}`;
	// Outside the project: n8n's own sites, and the two conventions CHANGELOG.md follows.
	const outside = ['https://n8n.io', 'https://docs.n8n.io/', 'https://keepachangelog.com/', 'https://semver.org/'];
	const local = ['http://127.0.0.1:5678', 'http://127.0.0.1:5680/'];
	const pages = ['README.md', 'CHANGELOG.md', ...readdirSync(path.join(PACKAGE_ROOT, 'docs')).filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`)];

	test.each(pages)('%s: a relative link names a file of the repository; an address is the repository, the npm page or one of a few known sites', (page) => {
		const text = readFileSync(path.join(PACKAGE_ROOT, page), 'utf8');
		const targets = [...text.matchAll(/\]\(([^)\s]+)\)|<(https?:\/\/[^>]+)>/g)].map((match) => match[1] ?? match[2]);
		const broken = targets.filter((target) => {
			if (/^https?:/.test(target)) return ![repository, npmPage, ...outside, ...local].some((prefix) => target.startsWith(prefix));
			if (target.startsWith('#')) return false;
			return !existsSync(path.join(PACKAGE_ROOT, path.dirname(page), target.split('#')[0]));
		});
		expect(broken).toEqual([]);
	});

	test("the credential's and the node's documentation links are the npm page, which exists wherever the package can be installed from", () => {
		const codex = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'nodes', 'TemplateMessage', 'TemplateMessage.node.json'), 'utf8')) as { resources: Record<string, Array<{ url: string }>> };
		const { TemplateMessageApi } = require(path.join(PACKAGE_ROOT, 'dist', 'credentials', 'TemplateMessageApi.credentials.js'));
		expect([new TemplateMessageApi().documentationUrl, ...Object.values(codex.resources).flat().map(({ url }) => url)]).toEqual([npmPage, npmPage, npmPage]);
	});
});
