import type { IDataObject, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { InvalidFieldError } from './InvalidFieldError';

// How an option is declared once (its field, its reading, its scope) and how a table of them
// becomes an operation's Options collection and its reader: Send's table is in options.ts, Get
// Status's in statusOptions.ts.

export interface ReadContext {
	/** Every option of the collection as n8n gave it, for the one whose reading depends on another. */
	allOptions: IDataObject;
	typeVersion: number;
	/** A value the option cannot be read from (an expression's): the error naming it, never its default. */
	refuse: (problem: string, hint: string) => never;
}

/** The error for an option's value, named as the editor shows it: a field error of an item, or the run's (see readRunOptions). */
export type Refuse = (field: string, problem: string, hint: string) => never;

export const fieldError: Refuse = (field, problem, hint) => {
	throw new InvalidFieldError(field, problem, hint);
};

/** An option read once for the run (see readRunOptions): the run's error, before any request. */
export function runOptionRefused(node: INode): Refuse {
	return (field, problem, hint) => {
		throw new NodeOperationError(node, `${field}: ${problem}`, { description: hint });
	};
}

export type Scope = 'run' | 'item';

/** The Options collection's name in the editor, Send's and Get Status's alike. */
const COLLECTION_NAME = 'Options';

/** Where the editor shows an option: `Options → <its name>`. */
export function optionPathOf(displayName: string): string {
	return `${COLLECTION_NAME} → ${displayName}`;
}

export interface OptionSpec<T, S extends Scope = Scope> {
	/** The editor's field, but its name, which is the spec's key. */
	property: Omit<INodeProperties, 'name'>;
	/** What the node works with: the value as given (undefined when not added) made sure of. */
	read(value: unknown, context: ReadContext): T;
	/** Read once for the run from the first item, or for each item (what shapes one message). */
	scope: S;
}

function shown(value: unknown): string {
	if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
	return value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : String(value);
}

/** true or false, also as the text an expression or a sheet gives ("TRUE", " false "); undefined for anything else. */
export function booleanOf(value: unknown): boolean | undefined {
	if (typeof value === 'boolean') return value;
	if (typeof value === 'string' && /^\s*(true|false)\s*$/i.test(value)) return value.trim().toLowerCase() === 'true';
	return undefined;
}

/** A switch: on or off, also as the text an expression gives ("true", "false"); nothing else. */
export function readSwitch(value: unknown, { refuse }: Pick<ReadContext, 'refuse'>): boolean {
	if (value === undefined || value === null || value === '') return false;
	const given = booleanOf(value);
	if (given !== undefined) return given;
	return refuse(`expected true or false, got ${shown(value)}`, 'Use an expression that gives true or false, or set the switch itself');
}

/** A number, also as the text an expression gives ("5"); undefined when not given. */
function readNumber(value: unknown, { refuse }: Pick<ReadContext, 'refuse'>): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
	return refuse(`expected a number, got ${shown(value)}`, 'Use an expression that gives a number, or enter the number itself');
}

export const optionSpec = <T, S extends Scope>(scope: S, property: Omit<INodeProperties, 'name'>, read: (value: unknown, context: ReadContext) => T): OptionSpec<T, S> => ({ property, read, scope });

/**
 * A number field, its bounds stated once: the editor's (typeOptions) and the reading's. The number given (whole
 * when `precision` is 0), its default when none is given; `seconds`: read in milliseconds. Below `min` (only an
 * expression gives one) or too small to be anything but 0, it is refused: held at 0, a rate would be no limit.
 * Above `max` it is held at `max`, as workflows saved before some fields had one keep running.
 */
export function numberOption(
	property: Omit<INodeProperties, 'name' | 'type' | 'typeOptions'>,
	{ min, max, precision = 0, seconds = false }: { min: number; max?: number; precision?: number; seconds?: boolean },
): OptionSpec<number, 'run'> {
	const typeOptions = max === undefined ? { minValue: min, numberPrecision: precision } : { minValue: min, maxValue: max, numberPrecision: precision };
	return optionSpec('run', { ...property, type: 'number', typeOptions }, (value, context) => {
		const given = readNumber(value, context);
		const range = `${min}${max === undefined ? ' or more' : ` to ${max}`}`;
		if (given !== undefined && given < min) context.refuse(`expected ${range}, got ${given}`, `Use an expression that gives a number from ${range}`);
		const held = Math.min(given === undefined ? (property.default as number) : given, max ?? Infinity);
		const smallest = 10 ** -precision;
		if (held > 0 && held < smallest) context.refuse(`expected ${range}, got ${given}, less than the smallest it takes (${smallest})`, `Use an expression that gives a number from ${range}`);
		const number = precision === 0 ? Math.floor(held) : held;
		return seconds ? number * 1000 : number;
	});
}

/** A choice among the field's own values, its default when none is given. */
export function choiceOption<const T extends string>(property: Omit<INodeProperties, 'name'> & { options: Array<{ name: string; value: T; description: string }> }): OptionSpec<T, 'item'> {
	const choices = (property.options as Array<{ value: T }>).map((choice) => choice.value);
	return optionSpec('item', property, (value, { refuse }) => {
		if (value === undefined || value === null || value === '') return property.default as T;
		return readChoice(value, choices, refuse, 'Use an expression that gives one of these values, or pick one in the list');
	});
}

/** One of `choices`, or refused naming them and what was given. */
export function readChoice<T extends string>(value: unknown, choices: readonly T[], refuse: (problem: string, hint: string) => never, hint: string): T {
	if ((choices as readonly unknown[]).includes(value)) return value as T;
	return refuse(`expected one of ${choices.map((choice) => JSON.stringify(choice)).join(', ')}, got ${shown(value)}`, hint);
}

/** The same option offered by another operation, in its words (its name, its description). */
export function reworded<T, S extends Scope>(spec: OptionSpec<T, S>, words: Partial<Pick<INodeProperties, 'displayName' | 'description'>>): OptionSpec<T, S> {
	return { ...spec, property: { ...spec.property, ...words } };
}

/**
 * The options of `table` that are set (`set`: the collection as saved), each read by its own path with `read`:
 * one whose expression fails is named, and fails only where it is read.
 */
export function setOptionsOf(table: Record<string, OptionSpec<unknown>>, set: unknown, read: (name: string) => unknown): IDataObject {
	const collection: IDataObject = {};
	const names = typeof set === 'object' && set !== null ? Object.keys(set) : [];
	for (const name of names) if (Object.prototype.hasOwnProperty.call(table, name)) collection[name] = read(name) as IDataObject[string];
	return collection;
}

/** An operation's Options collection, from its table of options: the one builder of every operation's. */
export function optionsCollection(name: string, table: Record<string, OptionSpec<unknown>>): INodeProperties {
	return {
		displayName: COLLECTION_NAME,
		name,
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: Object.entries(table).map(([optionName, { property }]) => {
			const { displayName, ...rest } = property;
			return { displayName, name: optionName, ...rest } as INodeProperties;
		}),
	};
}

/** Every option of a table, read from its Options collection as n8n gave it. */
export function readTable<Table extends Record<string, OptionSpec<unknown>>>(
	table: Table,
	collection: IDataObject,
	typeVersion: number,
	refuse: Refuse,
): { [Name in keyof Table]: ReturnType<Table[Name]['read']> } {
	const values: IDataObject = {};
	for (const [name, spec] of Object.entries(table)) values[name] = readOne(spec, collection[name], { allOptions: collection, typeVersion }, refuse) as IDataObject[string];
	return values as { [Name in keyof Table]: ReturnType<Table[Name]['read']> };
}

/** One option's reading; a value it cannot read is refused naming the option where the editor shows it. */
function readOne<T>(spec: OptionSpec<T>, value: unknown, context: Omit<ReadContext, 'refuse'>, refuse: Refuse): T {
	return spec.read(value, { ...context, refuse: (problem, hint) => refuse(optionPathOf(spec.property.displayName), problem, hint) });
}
