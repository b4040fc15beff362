/**
 * What npm would publish: exactly the build, the manifest, README, LICENSE and index.js; and that
 * tarball, installed into a fresh folder, loads the way n8n loads a community package.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PackageDirectoryLoader } from 'n8n-core';
import type { INodeTypeDescription } from 'n8n-workflow';

import { PACKAGE_NAME, PACKAGE_ROOT } from '../helpers/engine';

const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let workDir: string;
beforeAll(() => {
	workDir = mkdtempSync(path.join(os.tmpdir(), 'tm-pack-'));
});
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

test('the tarball holds the build, package.json, README.md, LICENSE.md and index.js, nothing else', () => {
	const [pack] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], PACKAGE_ROOT)) as Array<{ files: Array<{ path: string }> }>;
	const files = pack.files.map((file) => file.path).sort();
	const outsideDist = files.filter((file) => !file.startsWith('dist/'));
	expect(outsideDist).toEqual(['LICENSE.md', 'README.md', 'index.js', 'package.json']);
	expect(files.filter((file) => /\.(ts|map)$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);
	expect(files).toEqual(
		expect.arrayContaining([
			'dist/nodes/TemplateMessage/TemplateMessage.node.js',
			'dist/nodes/TemplateMessage/TemplateMessage.node.json',
			'dist/credentials/TemplateMessageApi.credentials.js',
			'dist/icons/templateMessage.svg',
			'dist/icons/templateMessage.dark.svg',
		]),
	);
});

test('installed from the packed tarball into a fresh folder, n8n’s loader finds node and credential', async () => {
	const tarball = npm(['pack', '--silent', '--ignore-scripts', '--pack-destination', workDir], PACKAGE_ROOT).trim().split('\n').pop()!;
	const app = path.join(workDir, 'app');
	mkdirSync(app);
	npm(['init', '-y'], app);
	// As n8n 1.x's Community Nodes installs a package: a plain `npm install`, which fetches the peer
	// dependencies it needs. n8n-workflow's newest (2.x) next to n8n 1.x fails to build on Node 20, or
	// loads beside the host's, whose errors it then does not recognise.
	npm(['install', path.join(workDir, tarball), '--ignore-scripts', '--no-audit', '--no-fund'], app);
	expect(existsSync(path.join(app, 'node_modules', 'n8n-workflow'))).toBe(false);
	// n8n provides n8n-workflow to community packages; here the repository's copy plays that part.
	symlinkSync(path.join(PACKAGE_ROOT, 'node_modules', 'n8n-workflow'), path.join(app, 'node_modules', 'n8n-workflow'), 'dir');

	const loader = new PackageDirectoryLoader(path.join(app, 'node_modules', PACKAGE_NAME));
	await loader.loadAll();
	expect(Object.keys(loader.nodeTypes)).toEqual(['templateMessage']);
	expect(Object.keys(loader.credentialTypes)).toEqual(['templateMessageApi']);
	const description = loader.types.nodes[0] as INodeTypeDescription;
	expect(description).toMatchObject({ name: 'templateMessage', usableAsTool: true, codex: { categories: ['Communication'] } });
	expect(loader.directory).toBe(path.join(app, 'node_modules', PACKAGE_NAME));
});
