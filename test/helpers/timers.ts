import { createHook } from 'node:async_hooks';

/** Where the node's and n8n's own code lives, built or installed; jest's and the tests' timers are not theirs. */
const NODE_OR_N8N = /\/dist\/(nodes|credentials)\/|\/node_modules\/n8n-(core|workflow)\//;

/**
 * Timeouts created from now on by the node or n8n (not by jest or the tests' servers) that have
 * not fired or been cleared yet, each as the stack that created it. Nothing the node does later can
 * start without one, so none left when a run settles means no request can leave after it.
 */
export function trackTimers(): { stillRunning: () => string[] } {
	const live = new Map<number, string>();
	const hook = createHook({
		init(id, type) {
			if (type !== 'Timeout') return;
			const frames = (new Error().stack ?? '').split('\n');
			const at = frames.findIndex((frame) => frame.includes('at setTimeout'));
			const creator = frames.slice(at + 1).join('\n');
			if (at >= 0 && NODE_OR_N8N.test(creator)) live.set(id, creator);
		},
		destroy(id) {
			live.delete(id);
		},
	}).enable();
	return {
		stillRunning: () => {
			hook.disable();
			return [...live.values()];
		},
	};
}
