/** Display names, also the start of every message about a field; one under the template's collection is named with it. */
const TEMPLATE = 'Template (Checks and Preview)';

export const TEMPLATE_FIELD = {
	bodyText: 'Body Text',
	header: 'Header',
	headerText: 'Header Text',
	buttons: 'Buttons',
} as const;

export const FIELD = {
	phoneNumber: 'Phone Number',
	templateCodeId: 'Template Code ID',
	template: TEMPLATE,
	bodyValues: 'Body Values',
	headerType: 'Header Type',
	headerText: 'Header Text',
	headerMediaUrl: 'Header Media URL',
	buttons: 'Buttons',
	payloadMode: 'Define Content',
	sendOnce: 'Send Once',
	rawPayload: 'Payload (JSON)',
	messageId: 'Message ID',
	templateBody: `${TEMPLATE} → ${TEMPLATE_FIELD.bodyText}`,
	templateHeader: `${TEMPLATE} → ${TEMPLATE_FIELD.header}`,
	templateHeaderText: `${TEMPLATE} → ${TEMPLATE_FIELD.headerText}`,
	templateButtons: `${TEMPLATE} → ${TEMPLATE_FIELD.buttons}`,
} as const;

/** Define Content's choices, by value. */
export const PAYLOAD_MODE = {
	fields: 'Using Fields Below',
	json: 'Using JSON',
} as const;

/** Send Once's choices, by value. */
export const SEND_ONCE_CHOICE = {
	off: 'Off',
	recipientTemplate: 'Once per Recipient and Template',
	recipientTemplateValues: 'Once per Recipient, Template and Values',
	customKey: 'Once per Message Key',
} as const;

/**
 * Each choice field's default, where it is read when n8n leaves it out. n8n's lint wants the description's
 * own default a literal: test/description/fieldNames.test.ts checks that they agree.
 */
export const FIELD_DEFAULT = {
	payloadMode: 'fields',
	bodyValuesMode: 'fields',
	headerType: 'none',
	sendOnce: 'off',
	forget: 'keys',
} as const satisfies { payloadMode: keyof typeof PAYLOAD_MODE; sendOnce: keyof typeof SEND_ONCE_CHOICE } & Record<string, string>;

/** The operations' names, as the Operation field lists them (keyed by its values). */
export const OPERATION_NAME = {
	send: 'Send',
	getStatus: 'Get Status',
	forget: 'Forget Sent Messages',
} as const;
