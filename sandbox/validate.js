'use strict';
/**
 * Checks a send request body against the API spec (shared/spec/template-message-api.md).
 * Returns a list of problems; empty when the body is valid. Accepts every spelling the spec
 * shows (sub_type/sub_types, url/url_dynamic, index as number or numeric string, quick reply
 * value in payload or text).
 */
function validateSendRequest(body) {
	const problems = [];
	const fail = (path, message) => problems.push(`${path} ${message}`);
	const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
	const nonEmptyText = (v) => typeof v === 'string' && v.trim() !== '';

	if (!isObject(body)) return ['body must be a JSON object'];
	if (typeof body.phone_number !== 'string' || !/^\+?[1-9]\d{6,14}$/.test(body.phone_number)) {
		fail('phone_number', 'must be a country code and number, digits only with an optional leading +');
	}
	const message = body.message;
	if (!isObject(message)) return [...problems, 'message must be an object'];
	if (message.type !== 'template') fail('message.type', 'must be "template"');
	const template = message.template;
	if (!isObject(template)) return [...problems, 'message.template must be an object'];
	if (!nonEmptyText(template.template_code_id)) fail('message.template.template_code_id', 'must be a non-empty string');
	if (!Array.isArray(template.payload)) return [...problems, 'message.template.payload must be an array'];

	const positions = new Set();
	template.payload.forEach((component, i) => {
		const at = `message.template.payload[${i}]`;
		if (!isObject(component)) return fail(at, 'must be an object');
		if (!['header', 'body', 'button'].includes(component.position)) return fail(`${at}.position`, 'must be header, body or button');
		if (positions.has(component.position)) fail(`${at}.position`, `"${component.position}" appears twice`);
		positions.add(component.position);
		if (!Array.isArray(component.parameters) || component.parameters.length === 0) return fail(`${at}.parameters`, 'must be a non-empty array');
		component.parameters.forEach((parameter, j) => {
			const where = `${at}.parameters[${j}]`;
			if (!isObject(parameter)) return fail(where, 'must be an object');
			if (component.position === 'body') checkBody(parameter, where, fail, nonEmptyText);
			else if (component.position === 'header') checkHeader(parameter, where, fail, nonEmptyText, isObject);
			else checkButton(parameter, where, fail, nonEmptyText, isObject);
		});
	});
	return problems;
}

function checkBody(parameter, where, fail, nonEmptyText) {
	if (parameter.type !== 'text') fail(`${where}.type`, 'must be "text"');
	if (!nonEmptyText(parameter.text)) fail(`${where}.text`, 'must be a non-empty string');
}

function checkHeader(parameter, where, fail, nonEmptyText, isObject) {
	const { type } = parameter;
	if (type === 'text') {
		if (!nonEmptyText(parameter.text)) fail(`${where}.text`, 'must be a non-empty string');
		return;
	}
	if (!['image', 'video', 'document'].includes(type)) return fail(`${where}.type`, 'must be text, image, video or document');
	const media = parameter[type];
	if (!isObject(media)) return fail(`${where}.${type}`, 'must be an object with a url');
	let url;
	try {
		url = new URL(media.url);
	} catch {
		return fail(`${where}.${type}.url`, 'must be a URL');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`${where}.${type}.url`, 'must use http or https');
}

function checkButton(parameter, where, fail, nonEmptyText) {
	const subType = parameter.sub_type ?? parameter.sub_types;
	if (!['quick_reply', 'url', 'url_dynamic'].includes(subType)) fail(`${where}.sub_type`, 'must be quick_reply, url or url_dynamic');
	const index = typeof parameter.index === 'string' && /^\d+$/.test(parameter.index) ? Number(parameter.index) : parameter.index;
	if (!Number.isInteger(index) || index < 0) fail(`${where}.index`, 'must be a whole number from 0, or such a number as a string');
	if (!Array.isArray(parameter.parameters) || parameter.parameters.length !== 1) return fail(`${where}.parameters`, 'must hold exactly one parameter');
	const inner = parameter.parameters[0];
	if (subType === 'quick_reply') {
		if (inner?.type !== 'payload') fail(`${where}.parameters[0].type`, 'must be "payload" for a quick reply');
		if (!nonEmptyText(inner?.payload) && !nonEmptyText(inner?.text)) fail(`${where}.parameters[0].payload`, 'must be a non-empty string');
	} else {
		if (inner?.type !== 'text') fail(`${where}.parameters[0].type`, 'must be "text" for a dynamic URL');
		if (!nonEmptyText(inner?.text)) fail(`${where}.parameters[0].text`, 'must be a non-empty string');
	}
}

module.exports = { validateSendRequest };
