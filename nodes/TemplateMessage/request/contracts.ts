/**
 * What passes between the request builder's parts: what the node read for one item, and the
 * request body it becomes. The builder (payload.ts) and its parts (buttons.ts, rawPayload.ts,
 * templateCheck.ts) import these from here, so none of them imports another to know a shape.
 */
import type { TemplateShape } from './template';

/** The request body of `POST /api/v2/push/message`, as the spec describes it. */
export interface SendRequestBody {
	phone_number: string;
	message: {
		type: 'template';
		template: {
			template_code_id: string;
			payload: PayloadComponent[];
		};
	};
}

export type ComponentPosition = 'header' | 'body' | 'button';

export interface PayloadComponent {
	position: ComponentPosition;
	parameters: object[];
}

export interface ButtonInput {
	kind: unknown;
	index: unknown;
	value: unknown;
}

/** The naming variants the spec shows side by side; the defaults follow its examples. */
export interface CompatibilityOptions {
	buttonTypeField: 'sub_type' | 'sub_types';
	dynamicUrlSubType: 'url' | 'url_dynamic';
	buttonIndexFormat: 'string' | 'number';
	quickReplyValueField: 'payload' | 'text' | 'both';
}

export const DEFAULT_COMPATIBILITY: CompatibilityOptions = {
	buttonTypeField: 'sub_type',
	dynamicUrlSubType: 'url',
	buttonIndexFormat: 'string',
	quickReplyValueField: 'payload',
};

export type ComponentsInput =
	| {
			mode: 'fields';
			bodyValues: unknown[];
			header: { type: unknown; text?: unknown; url?: unknown };
			buttons: ButtonInput[];
	  }
	| { mode: 'json'; rawPayload: unknown };

/** Everything the node read for one item, before any checking. */
export interface MessageInput {
	phoneNumber: unknown;
	defaultCountryCode?: unknown;
	templateCodeId: unknown;
	components: ComponentsInput;
	compatibility?: Partial<CompatibilityOptions>;
	/** The template as registered, when the user gave it: the request is checked against it. */
	template?: TemplateShape;
}
