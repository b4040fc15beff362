/**
 * An option that nothing reads fails here: every entry of Send's and Get Status's tables is read by name
 * somewhere in the node's code outside the tables' own entries.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { OPTIONS } from '../../nodes/TemplateMessage/shared/options';
import { STATUS_OPTIONS } from '../../nodes/TemplateMessage/shared/statusOptions';

const NODE = path.join(__dirname, '../../nodes/TemplateMessage');

function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return sources(full);
		return entry.name.endsWith('.ts') ? [full] : [];
	});
}

/** The node's code without the tables' entries, where each name appears as the key it is. */
const code = sources(NODE)
	.map((file) => readFileSync(file, 'utf8'))
	.map((text) => text.replace(/export const OPTIONS = \{[\s\S]*?\n\};/, '').replace(/export const STATUS_OPTIONS = \{[\s\S]*?\n\} satisfies/, ''))
	.join('\n');

test.each([...Object.keys(OPTIONS).map((name) => ['Send', name]), ...Object.keys(STATUS_OPTIONS).map((name) => ['Get Status', name])])('%s: the option %s is read where it acts', (_operation, name) => {
	expect(new RegExp(`\\b${name}\\b`).test(code)).toBe(true);
});
