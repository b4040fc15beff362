import type { INodeProperties } from 'n8n-workflow';

import { properties } from '../../nodes/TemplateMessage/actions/router';
import { FIELD, FIELD_DEFAULT } from '../../nodes/TemplateMessage/shared/fieldNames';

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

test("each choice field's default is the one the node reads when n8n leaves the field out", () => {
	const described = Object.fromEntries(Object.keys(FIELD_DEFAULT).map((name) => [name, properties.find((property) => property.name === name)?.default]));
	expect(described).toEqual(FIELD_DEFAULT);
});
