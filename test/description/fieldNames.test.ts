import type { INodeProperties } from 'n8n-workflow';

import { properties } from '../../nodes/TemplateMessage/actions/router';
import { FIELD } from '../../nodes/TemplateMessage/shared/fieldNames';

/** The display names on a path through the description: a field, then an option of its collection. */
function namesOnPaths(properties: INodeProperties[]): Set<string> {
	const names = new Set<string>();
	for (const property of properties) {
		names.add(property.displayName);
		for (const option of (property.type === 'collection' ? property.options : []) as INodeProperties[]) names.add(`${property.displayName} → ${option.displayName}`);
	}
	return names;
}

test('every field a message names is one the editor shows, under the name it shows', () => {
	const shown = namesOnPaths(properties);
	expect(Object.values(FIELD).filter((name) => !shown.has(name))).toEqual([]);
});
