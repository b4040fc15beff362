import type { IDataObject, IExecuteFunctions, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { SendOnce, ButtonInput, MessageInput, PhoneSource, SendRequestBody, TemplateShape } from '../shared/contracts';
import { optionPath, optionsOfScope, readOptions } from '../shared/options';
import { booleanOf, fieldError } from '../shared/optionSpec';
import { buttonKindsInText, buttonValueOf, FORGET_KEY_DEFAULT, isFailedStatus, isMediaHeaderKind, MESSAGE_KEY_FIELD, VALUE_BUTTON_KINDS } from '../shared/contracts';
import { messageKey, storedMessageKey } from './messageKey';
import { bodyValuesFromList } from './payload';
import { isEmptyValue, parseJson } from './text';
import { isObject } from '../shared/jsonObject';
import { parseTemplate } from './templateShape';
import { FIELD, FIELD_DEFAULT, PAYLOAD_MODE } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { truncate } from '../shared/bounded';
import { templateTextAsWritten } from './pastedTemplate';

/**
 * One parameter of one item, as n8n evaluates it. An expression that throws there (a node it refers to did
 * not run, n8n cannot pair the item) is that field's problem, named as the editor names it.
 */
export function readParameter(ctx: IExecuteFunctions, path: string, itemIndex: number, field: string, fallback?: unknown): unknown {
	let failure: unknown;
	try {
		return ctx.getNodeParameter(path, itemIndex, fallback) as unknown;
	} catch (error) {
		failure = error;
	}
	// Made a NodeOperationError with the item's index where the item fails (see output/errors.ts).
	const { description, context } = (failure ?? {}) as { description?: unknown; context?: { nodeCause?: unknown } };
	const hint = typeof description === 'string' && description.trim() !== '' ? truncate(description.trim().replace(/\.$/, ''), 300) : 'Check the expression with this item as its input';
	// n8n's ExpressionError names the node it could not read from apart from its message.
	const node = typeof context?.nodeCause === 'string' ? ` (node ${JSON.stringify(truncate(context.nodeCause, 60))})` : '';
	throw new InvalidFieldError(field, `its expression failed: ${truncate(failure instanceof Error ? failure.message : String(failure), 200)}${node}`, hint);
}

/**
 * A parameter read once for the whole run, from the first item (Options that govern the run, Send Once): an
 * expression that throws there is the run's error, named as readParameter names an item's.
 */
export function readRunParameter(ctx: IExecuteFunctions, path: string, field: string, fallback?: unknown): unknown {
	let refused: InvalidFieldError | undefined;
	try {
		return readParameter(ctx, path, 0, field, fallback);
	} catch (error) {
		refused = error as InvalidFieldError;
	}
	throw new NodeOperationError(ctx.getNode(), refused.message, { description: `${refused.hint ?? ''} This setting is read once for the whole run, from the first item.`.trim() });
}

export function readMessageKey(ctx: IExecuteFunctions, itemIndex: number, sendOnce: SendOnce, request: SendRequestBody): string | undefined {
	if (sendOnce === 'off') return undefined;
	return messageKey(request, sendOnce, sendOnce === 'customKey' ? readParameter(ctx, 'messageKey', itemIndex, MESSAGE_KEY_FIELD, '') : undefined);
}

/**
 * The key to forget; undefined, at the default, for a Send's failed row without one (refused before Send Once
 * made its key, as an invalid row is): its message never reached the record.
 */
export function readForgetKey(ctx: IExecuteFunctions, itemIndex: number): string | undefined {
	const key = readWithDetailsText(ctx, 'forgetKey', itemIndex, MESSAGE_KEY_FIELD, FORGET_KEY_DEFAULT, 'messageKey');
	if (atDefault(ctx, 'forgetKey', FORGET_KEY_DEFAULT) && isEmptyValue(key) && failedSendDetails(ctx.getInputData()[itemIndex]?.json)) return undefined;
	return storedMessageKey(key);
}

/**
 * A parameter whose default reads a Send's row (`{{ $json.details?.msgid ?? $json.msgid }}`), left at it: a
 * Send's failed row is read by its `details` alone, as an object or as the JSON text a sheet wrote back,
 * where the expression cannot reach it. n8n's error output adds the input's fields to such a row, and a
 * sheet's row keeps its columns: the msgid or key at the top is then an earlier message's. Another row
 * whose value is empty may still hold it in details written back as text.
 */
export function readWithDetailsText(ctx: IExecuteFunctions, path: string, itemIndex: number, field: string, defaultExpression: string, name: 'msgid' | 'messageKey'): unknown {
	const value = readParameter(ctx, path, itemIndex, field, '');
	if (!atDefault(ctx, path, defaultExpression)) return value;
	const json = ctx.getInputData()[itemIndex]?.json;
	const failed = failedSendDetails(json);
	if (failed) return failed[name];
	if (!isEmptyValue(value)) return value;
	const details = typeof json?.details === 'string' ? detailsText(json.details) : undefined;
	return isObject(details) ? (details[name] ?? value) : value;
}

/** The parameter is left at its default expression (or absent, as n8n saves a default). */
export function atDefault(ctx: IExecuteFunctions, path: string, defaultExpression: string): boolean {
	const parameter = ctx.getNode().parameters[path];
	return parameter === undefined || parameter === defaultExpression;
}

/**
 * A Send's failed row: `error`, and `details` with `success: false` and the status of a failed row (or
 * 0.1.0's delivery), as an object or the JSON text a sheet wrote back; or, on the regular output, that
 * status and `success: false` at the top beside them. Its details with its status, or undefined.
 */
export function failedSendDetails(json: IDataObject | undefined): IDataObject | undefined {
	if (typeof json?.error !== 'string' || json.error.trim() === '') return undefined;
	const details = typeof json.details === 'string' ? detailsText(json.details) : json.details;
	if (!isObject(details) || details.success !== false) return undefined;
	if (isFailedStatus(details.status) || isFailedStatus(details.delivery)) return details as IDataObject;
	return booleanOf(json.success) === false && isFailedStatus(json.status) ? { ...(details as IDataObject), status: json.status } : undefined;
}

function detailsText(text: string): unknown {
	if (text.length > MAX_DETAILS_TEXT || !text.trimStart().startsWith('{')) return undefined;
	const parsed = parseJson(text);
	return 'value' in parsed ? parsed.value : undefined;
}

/** A Send's details are a few hundred characters, a few thousand with its request; a longer text is not read. */
const MAX_DETAILS_TEXT = 100_000;

export function readForgetAll(ctx: IExecuteFunctions): boolean {
	return ctx.getNodeParameter('forget', 0, FIELD_DEFAULT.forget) === 'all';
}

/** n8n's run index of this node in the execution: 0 for its first run, 2 for the third batch of Loop Over Items. */
export function readRunIndex(ctx: IExecuteFunctions): number {
	return Number(ctx.getWorkflowDataProxy(0).$runIndex ?? 0);
}

/** What the Phone Number's and Default Country Code's expressions say about where a number comes from. */
function phoneSourceOf(parameters: INodeParameters): PhoneSource {
	const phoneNumber = String(parameters.phoneNumber ?? '');
	return {
		mapped: phoneNumber.startsWith('='),
		countryCodeMapped: String((parameters.options as IDataObject | undefined)?.defaultCountryCode ?? '').startsWith('='),
		// n8n's $fromAI has the aliases $fromai and $fromAi.
		chosenByModel: phoneNumber.startsWith('=') && /\$fromai\s*\(/i.test(phoneNumber),
	};
}

/** One item's parameters as they are: every check is left to the payload builder. */
export function readMessageInput(ctx: IExecuteFunctions, itemIndex: number): MessageInput {
	const get = (path: string, field: string, fallback?: unknown) => readParameter(ctx, path, itemIndex, field, fallback);
	const setOptions = optionsOfScope('item', ctx.getNode().parameters.options, (name) => get(`options.${name}`, optionPath(name)));
	const { defaultCountryCode, ...compatibility } = readOptions(setOptions, 'item', ctx.getNode().typeVersion, fieldError);

	const templateFields = templateAsWritten(ctx, get('template', FIELD.template, {}) as IDataObject);
	const base = {
		phoneNumber: get('phoneNumber', FIELD.phoneNumber),
		defaultCountryCode,
		phoneSource: phoneSourceOf(ctx.getNode().parameters),
		templateCodeId: get('templateCodeId', FIELD.templateCodeId),
		compatibility,
		template: templateShape(templateFields),
	};
	const fromTemplate = buttonsFromTemplate(templateButtonsOf(templateFields));

	if (get('payloadMode', FIELD.payloadMode, FIELD_DEFAULT.payloadMode) === 'json') {
		if (fromTemplate) {
			throw new InvalidFieldError(
				FIELD.templateButtons,
				`gives button values, but ${FIELD.payloadMode} is ${PAYLOAD_MODE.json}`,
				`Put the button values in ${FIELD.rawPayload}, or set ${FIELD.payloadMode} to ${PAYLOAD_MODE.fields}`,
			);
		}
		return { ...base, components: { mode: 'json', rawPayload: get('payloadJson', FIELD.rawPayload, '') } };
	}

	const bodyValues =
		get('bodyValuesMode', FIELD.bodyValues, FIELD_DEFAULT.bodyValuesMode) === 'list'
			? bodyValuesFromList(get('bodyValuesList', FIELD.bodyValues, ''))
			: ((get('bodyValues.values', FIELD.bodyValues, []) as IDataObject[]) ?? []).map((entry) => entry.text);

	const ownButtons: ButtonInput[] = ((get('buttons.button', FIELD.buttons, []) as IDataObject[]) ?? []).map((button) => ({
		kind: button.kind,
		index: button.index,
		value: buttonValue(button),
	}));
	if (fromTemplate && ownButtons.length > 0) {
		throw new InvalidFieldError(FIELD.buttons, `are given here and, with their values, under ${FIELD.templateButtons}`, `Give the button values in one place: leave ${FIELD.buttons} empty when ${FIELD.templateButtons} carries them`);
	}
	const buttons = fromTemplate ?? ownButtons;

	const headerType = get('headerType', FIELD.headerType, FIELD_DEFAULT.headerType);
	return {
		...base,
		components: {
			mode: 'fields',
			bodyValues,
			header: {
				type: headerType,
				text: headerType === 'text' ? get('headerText', FIELD.headerText, '') : undefined,
				url: isMediaHeaderKind(headerType) ? get('headerMediaUrl', FIELD.headerMediaUrl, '') : undefined,
				...(ctx.getNode().typeVersion < 2 && { urlAsWritten: true }),
			},
			buttons,
		},
	};
}

/** The Template fields with Body Text and Header Text as the user wrote them (see pastedTemplate.ts). */
function templateAsWritten(ctx: IExecuteFunctions, computed: IDataObject): IDataObject {
	const written = (ctx.getNode().parameters.template ?? {}) as IDataObject;
	const fields = { ...computed };
	if ('bodyText' in computed) fields.bodyText = templateTextAsWritten(written.bodyText, computed.bodyText, FIELD.templateBody) as string;
	if ('headerText' in computed) fields.headerText = templateTextAsWritten(written.headerText, computed.headerText, FIELD.templateHeaderText) as string;
	return fields;
}

const templateButtonsOf = (fields: IDataObject): IDataObject[] => ((fields.buttons as IDataObject | undefined)?.button as IDataObject[] | undefined) ?? [];

/** Undefined for a kind without a value: request/buttons.ts refuses such a button by its kind. */
const buttonValue = (button: IDataObject): unknown => {
	const value = buttonValueOf(button.kind);
	return value === undefined ? undefined : button[value.field];
};

/** The buttons from the template's list when they carry their values there, so that they are entered once. */
function buttonsFromTemplate(list: IDataObject[]): ButtonInput[] | undefined {
	const takesValue = (button: IDataObject) => buttonValueOf(button.kind) !== undefined;
	const hasValue = (button: IDataObject) => {
		const value = buttonValue(button);
		return value !== undefined && value !== null && value !== '';
	};
	if (!list.some((button) => takesValue(button) && hasValue(button))) return undefined;
	return list.flatMap((button, index) => {
		if (!takesValue(button)) return [];
		if (!hasValue(button)) {
			const what = buttonValueOf(button.kind)!.inText;
			throw new InvalidFieldError(`${FIELD.templateButtons} → button ${index + 1}`, `has no ${what}, while other buttons of the template carry their values`, `Give its ${what}: each ${buttonKindsInText(VALUE_BUTTON_KINDS, 'and')} button of the template needs one`);
		}
		return [{ kind: button.kind, index, value: buttonValue(button), field: `${FIELD.templateButtons} → button ${index + 1}` }];
	});
}

const shapes = new Map<string, TemplateShape | undefined>();
const MAX_SHAPES = 64;

/** Parsed once per distinct content: read for every item (they may be expressions) but the same for most. */
function templateShape(fields: IDataObject): TemplateShape | undefined {
	if (Object.keys(fields).length === 0) return undefined;
	const buttons = templateButtonsOf(fields).map(({ kind, label }) => ({ kind, label }));
	// Button values differ from item to item; the template's shape does not.
	const key = JSON.stringify({ ...fields, buttons });
	if (shapes.has(key)) return shapes.get(key);
	const shape = parseTemplate({
		bodyText: fields.bodyText,
		headerFormat: fields.headerFormat,
		headerText: fields.headerText,
		buttons,
		checkCharacters: fields.checkCharacters,
	});
	if (shapes.size >= MAX_SHAPES) shapes.clear();
	shapes.set(key, shape);
	return shape;
}
