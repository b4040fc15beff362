/** Building one item's request in the pure tests: its field error, and a message with a template. */
import { InvalidFieldError } from '../../nodes/TemplateMessage/shared/InvalidFieldError';
import type { ButtonInput, MessageInput } from '../../nodes/TemplateMessage/shared/contracts';
import type { TemplateInput } from '../../nodes/TemplateMessage/request/templateShape';
import { parseTemplate } from '../../nodes/TemplateMessage/request/templateShape';

/** The InvalidFieldError `run` throws; fails the test when it throws nothing or something else. */
export function fieldError(run: () => unknown): InvalidFieldError {
	try {
		run();
	} catch (error) {
		if (error instanceof InvalidFieldError) return error;
		throw error;
	}
	throw new Error('expected an InvalidFieldError');
}

export const ORDER_BODY = 'Hi {{1}}, your order {{2}} is confirmed. Reply {{1}} to stop.';

export interface MessageParts {
	body?: unknown[];
	header?: { type: string; text?: string; url?: string };
	buttons?: ButtonInput[];
}

/** One item in Using Fields Below, with the template shape parsed from `template`. */
export function templatedMessage(template: TemplateInput, parts: MessageParts = {}): MessageInput {
	return {
		phoneNumber: '+62 812 3456 7890',
		templateCodeId: 'order_confirmed',
		components: { mode: 'fields', bodyValues: parts.body ?? [], header: parts.header ?? { type: 'none' }, buttons: parts.buttons ?? [] },
		template: parseTemplate(template),
	};
}
