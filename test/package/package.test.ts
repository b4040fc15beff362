import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ICredentialType, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { CREDENTIAL_TYPE, loadPackage, NODE_TYPE, PACKAGE_ROOT } from '../helpers/engine';

const packageJson = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'));

describe('package.json follows n8n community package rules', () => {
	test('no runtime dependencies, no overrides, no install-time scripts; n8n-workflow as peer', () => {
		expect(packageJson.dependencies).toBeUndefined();
		expect(packageJson.overrides).toBeUndefined();
		for (const script of ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish', 'preprepare', 'postprepare']) {
			expect(packageJson.scripts[script]).toBeUndefined();
		}
		expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
		// Optional, so that npm does not install one beside the host's (see packaging.test.ts).
		expect(packageJson.peerDependenciesMeta).toEqual({ 'n8n-workflow': { optional: true } });
		expect(packageJson.keywords).toContain('n8n-community-node-package');
		expect(packageJson.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
	});

	test('npm ci works on every platform: no dependency the lockfile installs always is tied to one OS or CPU', () => {
		const lockfile = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { os?: string[]; cpu?: string[]; optional?: boolean }> };
		const tied = Object.entries(lockfile.packages)
			.filter(([, entry]) => (entry.os !== undefined || entry.cpu !== undefined) && entry.optional !== true)
			.map(([name, entry]) => `${name} (${[...(entry.os ?? []), ...(entry.cpu ?? [])].join(', ')})`);
		expect(tied).toEqual([]);
		// The check sees the platform packages there are (esbuild's, fsevents, …): it is not vacuous.
		expect(Object.values(lockfile.packages).some((entry) => entry.os !== undefined && entry.optional === true)).toBe(true);
	});

	test('every file the n8n section names is built', () => {
		for (const file of [...packageJson.n8n.nodes, ...packageJson.n8n.credentials]) {
			expect(existsSync(path.join(PACKAGE_ROOT, file))).toBe(true);
		}
	});
});

describe('loaded the way n8n loads a community package', () => {
	test('node and credential load under their names, with icons and codex', async () => {
		const { loader } = await loadPackage();
		expect(loader.packageName).toBe('n8n-nodes-template-message');
		const node = loader.types.nodes.find((type) => type.name === 'templateMessage') as INodeTypeDescription;
		const credential = loader.types.credentials.find((type) => type.name === CREDENTIAL_TYPE) as ICredentialType;
		expect(node).toMatchObject({ displayName: 'Template Message', usableAsTool: true, credentials: [{ name: CREDENTIAL_TYPE, required: true }] });
		expect(credential.displayName).toBe('Template Message API');
		expect(node.codex).toMatchObject({ categories: ['Communication'] });
		// The node creator searches these too: the provider is a WhatsApp API.
		expect(node.codex?.alias).toContain('WhatsApp');
		// …and the words people look for Send Once, Forget Sent Messages and Get Status by.
		expect(node.codex?.alias).toEqual(expect.arrayContaining(['Send Once', 'Forget', 'Resend', 'Status', 'Delivered', 'Read']));
		for (const icon of ['templateMessage.svg', 'templateMessage.dark.svg']) {
			expect(existsSync(path.join(PACKAGE_ROOT, 'dist', 'icons', icon))).toBe(true);
		}
	});

	test('the JWT is a password field and goes into the Authorization header as entered', async () => {
		const { loader } = await loadPackage();
		const credential = loader.credentialTypes[CREDENTIAL_TYPE].type as ICredentialType;
		expect(credential.properties.find((p) => p.name === 'token')).toMatchObject({ typeOptions: { password: true }, required: true });
		const authenticate = credential.authenticate as (c: object, r: object) => Promise<{ headers: Record<string, string> }>;
		const sent = await authenticate({ baseUrl: 'https://api.example.com', token: ' Bearer abc.def.ghi\n' }, { url: '/x', headers: { accept: 'application/json' } });
		expect(sent.headers).toEqual({ accept: 'application/json', Authorization: 'Bearer abc.def.ghi' });
	});

	test("the credential's connection test is the node's own method, which n8n picks when the credential declares none", async () => {
		const { loader, nodeTypes } = await loadPackage();
		// n8n's CredentialsTester takes a credential's own `test` first: there must be none.
		expect((loader.credentialTypes[CREDENTIAL_TYPE].type as ICredentialType).test).toBeUndefined();
		const node = nodeTypes[NODE_TYPE] as INodeType;
		const { testedBy } = node.description.credentials!.find((credential) => credential.name === CREDENTIAL_TYPE)!;
		expect(typeof node.methods?.credentialTest?.[testedBy as string]).toBe('function');
	});
});

describe("docs/development.md's compatibility table is what CI runs", () => {
	const page = readFileSync(path.join(PACKAGE_ROOT, 'docs', 'development.md'), 'utf8');
	const section = page.slice(page.indexOf('## Compatibility'));
	const rows = section.split('\n').filter((line) => /^\| \d/.test(line));
	const dependencies = (file: string) => JSON.parse(readFileSync(path.join(PACKAGE_ROOT, file), 'utf8')) as Record<string, Record<string, string>>;
	const engines = readdirSync(path.join(PACKAGE_ROOT, 'engines')).filter((name) => name.startsWith('n8n-'));

	test('one row per engine folder (each a jest project) and one for the dev dependencies and the app', () => {
		expect(rows).toHaveLength(engines.length + 1);
	});

	test.each(engines)('%s: its n8n-core and n8n-workflow', (engine) => {
		const { dependencies: engineDependencies } = dependencies(`engines/${engine}/package.json`);
		expect(rows).toContainEqual(expect.stringMatching(new RegExp(`^\\| ${engine.slice(4).replace('.', '\\.')} \\| ${engineDependencies['n8n-core']} \\| ${engineDependencies['n8n-workflow']} \\| jest project \`${engine}\``)));
	});

	test('2.x: the dev dependencies and the app', () => {
		const { devDependencies } = dependencies('package.json');
		const app = dependencies('n8n-app/package.json').dependencies.n8n;
		expect(rows[0]).toMatch(new RegExp(`^\\| ${app} \\| ${devDependencies['n8n-core']} \\| ${devDependencies['n8n-workflow']} \\|`));
	});
});
