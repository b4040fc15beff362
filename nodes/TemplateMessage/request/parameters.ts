import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { SendOnce, ButtonInput, MessageInput, SendRequestBody, TemplateShape } from '../shared/contracts';
import { readOptions } from '../shared/options';
import { fieldError } from '../shared/optionSpec';
import { buttonKindsInText, buttonValueOf, isMediaHeaderKind, VALUE_BUTTON_KINDS } from '../shared/contracts';
import { messageKey, storedMessageKey } from './messageKey';
import { bodyValuesFromList } from './payload';
import { parseTemplate } from './templateShape';
import { FIELD, FIELD_DEFAULT, PAYLOAD_MODE } from '../shared/fieldNames';
import { InvalidFieldError } from '../shared/InvalidFieldError';
import { templateTextAsWritten } from './pastedTemplate';

export function readMessageKey(ctx: IExecuteFunctions, itemIndex: number, sendOnce: SendOnce, request: SendRequestBody): string | undefined {
	if (sendOnce === 'off') return undefined;
	return messageKey(request, sendOnce, sendOnce === 'customKey' ? ctx.getNodeParameter('messageKey', itemIndex, '') : undefined);
}

export function readForgetKey(ctx: IExecuteFunctions, itemIndex: number): string {
	return storedMessageKey(ctx.getNodeParameter('forgetKey', itemIndex, ''));
}

export function readForgetAll(ctx: IExecuteFunctions): boolean {
	return ctx.getNodeParameter('forget', 0, FIELD_DEFAULT.forget) === 'all';
}

/** n8n's run index of this node in the execution: 0 for its first run, 2 for the third batch of Loop Over Items. */
export function readRunIndex(ctx: IExecuteFunctions): number {
	return Number(ctx.getWorkflowDataProxy(0).$runIndex ?? 0);
}

/** One item's parameters as they are: every check is left to the payload builder. */
export function readMessageInput(ctx: IExecuteFunctions, itemIndex: number): MessageInput {
	const get = (name: string, fallback?: unknown) => ctx.getNodeParameter(name, itemIndex, fallback) as unknown;
	const { defaultCountryCode, ...compatibility } = readOptions(get('options', {}) as IDataObject, 'item', ctx.getNode().typeVersion, fieldError);

	const templateFields = templateAsWritten(ctx, get('template', {}) as IDataObject);
	const base = {
		phoneNumber: get('phoneNumber'),
		phoneNumberMapped: String(ctx.getNode().parameters.phoneNumber ?? '').startsWith('='),
		defaultCountryCode,
		templateCodeId: get('templateCodeId'),
		compatibility,
		template: templateShape(templateFields),
	};
	const fromTemplate = buttonsFromTemplate(templateButtonsOf(templateFields));

	if (get('payloadMode', FIELD_DEFAULT.payloadMode) === 'json') {
		if (fromTemplate) {
			throw new InvalidFieldError(
				FIELD.templateButtons,
				`gives button values, but ${FIELD.payloadMode} is ${PAYLOAD_MODE.json}`,
				`Put the button values in ${FIELD.rawPayload}, or set ${FIELD.payloadMode} to ${PAYLOAD_MODE.fields}`,
			);
		}
		return { ...base, components: { mode: 'json', rawPayload: get('payloadJson', '') } };
	}

	const bodyValues =
		get('bodyValuesMode', FIELD_DEFAULT.bodyValuesMode) === 'list'
			? bodyValuesFromList(get('bodyValuesList', ''))
			: ((get('bodyValues.values', []) as IDataObject[]) ?? []).map((entry) => entry.text);

	const ownButtons: ButtonInput[] = ((get('buttons.button', []) as IDataObject[]) ?? []).map((button) => ({
		kind: button.kind,
		index: button.index,
		value: buttonValue(button),
	}));
	if (fromTemplate && ownButtons.length > 0) {
		throw new InvalidFieldError(FIELD.buttons, `are given here and, with their values, under ${FIELD.templateButtons}`, `Give the button values in one place: leave ${FIELD.buttons} empty when ${FIELD.templateButtons} carries them`);
	}
	const buttons = fromTemplate ?? ownButtons;

	const headerType = get('headerType', FIELD_DEFAULT.headerType);
	return {
		...base,
		components: {
			mode: 'fields',
			bodyValues,
			header: {
				type: headerType,
				text: headerType === 'text' ? get('headerText', '') : undefined,
				url: isMediaHeaderKind(headerType) ? get('headerMediaUrl', '') : undefined,
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
		return [{ kind: button.kind, index, value: buttonValue(button) }];
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
