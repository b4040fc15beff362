/**
 * Runs workflows in n8n's own engine (n8n-core's WorkflowExecute), with this package loaded
 * from its build the way n8n loads a community package (PackageDirectoryLoader reading the
 * "n8n" section of package.json). Only the parts n8n's server would provide around the engine
 * are filled in here: where credentials come from, and the lifecycle hooks.
 */
import * as n8nCore from 'n8n-core';
import { PackageDirectoryLoader, WorkflowExecute } from 'n8n-core';
import type {
	IExecuteFunctions,
	ICredentialDataDecryptedObject,
	ICredentials,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IPinData,
	IRun,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	IConnections,
	IWorkflowSettings,
} from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const PACKAGE_NAME = 'n8n-nodes-template-message';
/** The repository root, found upwards (this file also runs compiled, from .bench-build/). */
export const PACKAGE_ROOT = ((): string => {
	for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
		const manifest = path.join(dir, 'package.json');
		if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === PACKAGE_NAME) return dir;
	}
	throw new Error(`No ${PACKAGE_NAME} package.json above ${__dirname}`);
})();
/**
 * The n8n engine the test runs on (n8n-core 2.x, or an older one mapped in from engines/), and
 * what it does differently, read off the engine itself.
 */
export const ENGINE = (() => {
	const { version } = require('n8n-core/package.json') as { version: string };
	const workflowExecute = String(WorkflowExecute.prototype.processRunExecutionData);
	const context = (n8nCore as unknown as { ExecuteContext?: { prototype: object } }).ExecuteContext?.prototype ?? {};
	const workflowExports = n8nWorkflow as unknown as Record<string, unknown>;
	return {
		n8nCoreVersion: version,
		/** n8n up to 1.11x, when Retry On Fail re-runs a node whose items carry errors, keeps the first try's output. */
		showsRerunOutput: !/while \(didContinueOnFail/.test(workflowExecute),
		/** n8n 2.36 moves items whose json holds `details` besides `error` to the error output. */
		routesItemsWithDetails: String((WorkflowExecute.prototype as unknown as { handleNodeErrorOutput: unknown }).handleNodeErrorOutput).includes("'details'"),
		/** n8n 1.121 to 2.35 replace an item routed by its error with the error's message alone (1.120 and before clear the error first). */
		keepsOnlyErrorOnErrorOutput: !/'details'|item\.error = undefined/.test(String((WorkflowExecute.prototype as unknown as { handleNodeErrorOutput: unknown }).handleNodeErrorOutput)),
		/** `this.addExecutionHints` arrived in n8n 1.80. */
		keepsExecutionHints: 'addExecutionHints' in context,
		/** n8n-workflow's sleep clears its timer on abort (`sleepWithAbort`, or `sleep` with a signal). */
		sleepStopsOnAbort: typeof workflowExports.sleepWithAbort === 'function' || (workflowExports.sleep as (...args: unknown[]) => unknown).length >= 2,
	};
})();
export const NODE_TYPE = `${PACKAGE_NAME}.templateMessage`;
export const CREDENTIAL_TYPE = 'templateMessageApi';

export interface LoadedPackage {
	loader: PackageDirectoryLoader;
	nodeTypes: Record<string, INodeType | IVersionedNodeType>;
	credentialTypes: Record<string, { authenticate?: unknown }>;
}

let loaded: Promise<LoadedPackage> | undefined;

/** Loads the built package from the repository root, as n8n does for an installed package. */
export function loadPackage(): Promise<LoadedPackage> {
	loaded ??= (async () => {
		const loader = new PackageDirectoryLoader(PACKAGE_ROOT);
		await loader.loadAll();
		const nodeTypes: LoadedPackage['nodeTypes'] = {};
		for (const [name, { type }] of Object.entries(loader.nodeTypes)) {
			nodeTypes[`${loader.packageName}.${name}`] = type;
		}
		const credentialTypes: LoadedPackage['credentialTypes'] = {};
		for (const [name, { type }] of Object.entries(loader.credentialTypes)) {
			credentialTypes[name] = type as LoadedPackage['credentialTypes'][string];
		}
		return { loader, nodeTypes, credentialTypes };
	})();
	return loaded;
}

/**
 * Source nodes of the example workflows (manual trigger, webhook, schedule). The examples pin
 * their data on these nodes, and the engine never executes a pinned node: it passes the pinned
 * items on. So a description is all the engine needs of them here; real n8n runs them for real.
 */
function pinnedSourceType(name: string): INodeType {
	return {
		description: {
			displayName: name,
			name,
			group: ['trigger'],
			version: [1, 1.1, 1.2, 2],
			description: 'Stand-in for a pinned source node',
			defaults: { name },
			inputs: [],
			outputs: ['main'],
			properties: [],
		},
		async execute() {
			throw new Error(`${name} has no pinned data: the test engine only runs pinned source nodes`);
		},
	} as INodeType;
}

const PINNED_SOURCE_TYPES = ['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.webhook', 'n8n-nodes-base.scheduleTrigger'];

/**
 * Nodes of n8n's own that the examples use and whose effect is outside the engine (answering the
 * webhook's caller, waiting): here they pass their items on at once (a test that needs the time to
 * pass gives its own Wait in `extraNodeTypes`). The e2e suite runs the real ones.
 */
const PASS_THROUGH_TYPES = ['n8n-nodes-base.respondToWebhook', 'n8n-nodes-base.wait'];

function passThroughType(name: string): INodeType {
	return {
		description: {
			displayName: name,
			name,
			group: ['output'],
			version: [1, 1.1],
			description: 'Passes its items on (test engine)',
			defaults: {},
			inputs: ['main'],
			outputs: ['main'],
			properties: [],
		},
		async execute(this: IExecuteFunctions) {
			return [this.getInputData()];
		},
	} as unknown as INodeType;
}

/**
 * The webhook example's end (examples/webhook-order-confirmation.json): a Filter with one boolean
 * condition ("Not sent?") and a Stop and Error after it. These stand-ins do what the real nodes do
 * with that shape: keep the items whose condition is as the operator asks, and fail on the first
 * item that arrives with the error message. The e2e suite runs the real ones.
 */
function booleanFilterType(): INodeType {
	return {
		description: {
			...passThroughType('n8n-nodes-base.filter').description,
			version: [2, 2.1, 2.2, 2.3],
			properties: [{ displayName: 'Conditions', name: 'conditions', type: 'filter', default: {} }],
		},
		async execute(this: IExecuteFunctions) {
			const kept = this.getInputData().filter((_, itemIndex) => {
				const [condition] = (this.getNodeParameter('conditions', itemIndex) as { conditions: Array<{ leftValue: unknown; operator: { operation: string } }> }).conditions;
				return condition.leftValue === (condition.operator.operation === 'true');
			});
			return [kept];
		},
	} as unknown as INodeType;
}

function stopAndErrorType(): INodeType {
	return {
		description: { ...passThroughType('n8n-nodes-base.stopAndError').description, version: 1 },
		async execute(this: IExecuteFunctions) {
			if (this.getInputData().length > 0) throw new n8nWorkflow.NodeOperationError(this.getNode(), String(this.getNodeParameter('errorMessage', 0)));
			return [[]];
		},
	} as unknown as INodeType;
}

/**
 * The status example's end (examples/send-wait-status.json): a Merge that enriches input 1 with the
 * input 2 item whose field (Fields to Match) has the same value, input 2 winning a clash, as the real
 * Merge 3 does with Combine → Matching Fields → Enrich Input 1. The e2e suite runs the real one.
 */
function mergeByFieldType(): INodeType {
	return {
		description: {
			...passThroughType('n8n-nodes-base.merge').description,
			version: [3, 3.1, 3.2],
			inputs: ['main', 'main'],
			properties: [{ displayName: 'Fields to Match', name: 'fieldsToMatchString', type: 'string', default: '' }],
		},
		async execute(this: IExecuteFunctions) {
			const field = String(this.getNodeParameter('fieldsToMatchString', 0));
			const second = this.getInputData(1);
			return [
				this.getInputData(0).map((item, index) => {
					const match = second.find((other) => other.json[field] !== undefined && other.json[field] === item.json[field]);
					return { json: { ...item.json, ...match?.json }, pairedItem: { item: index } };
				}),
			];
		},
	} as unknown as INodeType;
}

class EngineNodeTypes implements INodeTypes {
	constructor(private readonly types: Record<string, INodeType | IVersionedNodeType>) {}

	getByName(nodeType: string) {
		const type = this.types[nodeType];
		if (!type) throw new Error(`Unknown node type ${nodeType}`);
		return type;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes() {
		return {};
	}
}

/** Credentials by type; `authenticate` applied the way n8n's server applies a generic one. */
class EngineCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
		private readonly credentialTypes: LoadedPackage['credentialTypes'],
	) {
		super();
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.credentialTypes[typeName] ?? {};
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		const generic = authenticate as { type: string; properties: Record<string, Record<string, string>> } | undefined;
		if (generic?.type !== 'generic' || !workflow || !node) return requestOptions;
		const resolve = (value: string) =>
			value.startsWith('=')
				? String(workflow.expression.getSimpleParameterValue(node, value, 'internal', { $credentials: credentials } as IDataObject, undefined, ''))
				: value;
		const options = requestOptions as unknown as Record<string, Record<string, string>>;
		for (const [outerKey, entries] of Object.entries(generic.properties)) {
			options[outerKey] ??= {};
			for (const [key, value] of Object.entries(entries)) options[outerKey][resolve(key)] = resolve(value);
		}
		return requestOptions;
	}

	async getDecrypted(_data: IWorkflowExecuteAdditionalData, _details: unknown, type: string) {
		const credentials = this.credentials[type];
		if (!credentials) throw new Error(`No test credentials of type ${type}`);
		return { ...credentials };
	}

	async preAuthentication() {
		return undefined;
	}

	async runPreAuthentication() {
		return undefined;
	}

	getParentTypes() {
		return [];
	}

	isCredentialUsableByNode() {
		return true;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these tests');
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties() {
		return [];
	}
}

export interface WorkflowJson {
	nodes: INode[];
	connections: IConnections;
	pinData?: IPinData;
	settings?: IWorkflowSettings;
}

export interface RunResult {
	run: IRun;
	/** Items a node put out on its first output (or on output `outputIndex`), in order. */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error a node stopped with, if it did. */
	nodeError(nodeName: string): IDataObject | undefined;
}

/** n8n's own HTTP Request node, from the n8n app's install (n8n-app/), for comparisons. */
export function loadHttpRequestNode(): Record<string, INodeType | IVersionedNodeType> {
	const file = path.join(PACKAGE_ROOT, 'n8n-app', 'node_modules', 'n8n-nodes-base', 'dist', 'nodes', 'HttpRequest', 'HttpRequest.node.js');
	const { HttpRequest } = require(file) as { HttpRequest: new () => IVersionedNodeType };
	return { 'n8n-nodes-base.httpRequest': new HttpRequest() };
}

/** Runs a whole workflow from its pinned source node, like "Execute workflow" in the editor. */
export async function runWorkflow(
	workflowJson: WorkflowJson,
	credentials: Record<string, ICredentialDataDecryptedObject>,
	extraNodeTypes: Record<string, INodeType | IVersionedNodeType> = {},
	/** Cancel the execution when this resolves, as "Stop execution" does. */
	cancelWhen?: Promise<unknown>,
	/** The saved workflow's id; '' for a workflow that was never saved. */
	workflowId = 'test-workflow',
): Promise<RunResult> {
	const { nodeTypes, credentialTypes } = await loadPackage();
	const types: Record<string, INodeType | IVersionedNodeType> = { ...extraNodeTypes, ...nodeTypes };
	for (const name of PINNED_SOURCE_TYPES) types[name] = pinnedSourceType(name);
	for (const name of PASS_THROUGH_TYPES) types[name] = extraNodeTypes[name] ?? passThroughType(name);
	types['n8n-nodes-base.filter'] = booleanFilterType();
	types['n8n-nodes-base.merge'] = mergeByFieldType();
	types['n8n-nodes-base.stopAndError'] = stopAndErrorType();

	const workflow = new Workflow({
		id: workflowId,
		name: 'test',
		nodes: workflowJson.nodes,
		connections: workflowJson.connections,
		active: false,
		nodeTypes: new EngineNodeTypes(types),
		settings: workflowJson.settings,
		pinData: workflowJson.pinData,
	});

	const startNode = workflowJson.nodes.find((node) => PINNED_SOURCE_TYPES.includes(node.type));
	if (!startNode || !workflowJson.pinData?.[startNode.name]) {
		throw new Error('The test engine starts workflows from a source node with pinned data');
	}

	let finished!: (run: IRun) => void;
	const done = new Promise<IRun>((resolve) => (finished = resolve));
	const hooks = lifecycleHooks(
		{ id: 'test-workflow', name: 'test', active: false, nodes: workflowJson.nodes, connections: workflowJson.connections, createdAt: new Date(), updatedAt: new Date() },
		finished,
	);

	const additionalData = {
		hooks,
		credentialsHelper: new EngineCredentialsHelper(credentials, credentialTypes),
		executionId: 'test-execution',
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		currentNodeParameters: undefined,
		executionTimeoutTimestamp: undefined,
		userId: 'test-user',
		variables: {},
		setExecutionStatus: () => {},
		sendDataToUI: () => {},
		logAiEvent: () => {},
	} as unknown as IWorkflowExecuteAdditionalData;

	const execute = new WorkflowExecute(additionalData, 'manual');
	// run() returns n8n's cancelable promise: cancel() is what "Stop execution" does.
	const running = startRun(execute, workflow, workflow.getNode(startNode.name)!, workflowJson.pinData);
	void cancelWhen?.then(() => running.cancel());
	await running.catch(() => undefined);
	const run = await done;

	return {
		run,
		output(nodeName, outputIndex = 0) {
			const task = run.data.resultData.runData[nodeName]?.[0];
			if (!task) throw new Error(`Node ${nodeName} did not run`);
			return task.data?.main?.[outputIndex] ?? [];
		},
		nodeError(nodeName) {
			return run.data.resultData.runData[nodeName]?.[0]?.error as IDataObject | undefined;
		},
	};
}

/**
 * The hooks n8n's server gives an execution, with only "after the workflow" used: n8n-core's
 * ExecutionLifecycleHooks from n8n 1.80 on, n8n-workflow's WorkflowHooks before.
 */
function lifecycleHooks(workflowData: Record<string, unknown>, onFinished: (run: IRun) => void): unknown {
	const { ExecutionLifecycleHooks } = n8nCore as Partial<typeof n8nCore>;
	if (ExecutionLifecycleHooks) {
		const hooks = new ExecutionLifecycleHooks('manual', 'test-execution', workflowData as never);
		hooks.addHandler('workflowExecuteAfter', onFinished);
		return hooks;
	}
	const { WorkflowHooks } = n8nWorkflow as unknown as { WorkflowHooks: new (...args: unknown[]) => unknown };
	return new WorkflowHooks({ workflowExecuteAfter: [async (run: IRun) => onFinished(run)] }, 'manual', 'test-execution', workflowData);
}

/** WorkflowExecute.run takes one options object from n8n 2.0 on, positional arguments before. */
function startRun(execute: WorkflowExecute, workflow: Workflow, startNode: INode, pinData: IPinData | undefined): ReturnType<WorkflowExecute['run']> {
	if (execute.run.length === 1) return execute.run({ workflow, startNode, pinData });
	const positional = execute.run as unknown as (...args: unknown[]) => ReturnType<WorkflowExecute['run']>;
	return positional.call(execute, workflow, startNode, undefined, pinData);
}

export interface SendNodeRun {
	parameters: IDataObject;
	items: IDataObject[];
	baseUrl: string;
	token?: string;
	/** n8n's node settings: "On Error" ('continueRegularOutput', 'continueErrorOutput', …). */
	onError?: INode['onError'];
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
	/**
	 * Cancel the execution when this resolves, as "Stop execution" does: resolve it from the API's
	 * responder (see cancelOn), so that the cancel comes at the same point of the run on any machine.
	 */
	cancelWhen?: Promise<unknown>;
	/** The node's version in the workflow: 1 (as saved with 0.1.0) unless given. */
	typeVersion?: number;
	/** The saved workflow's id ('test-workflow' unless given); '' for one never saved. */
	workflowId?: string;
}

/** A cancel to fire from a test's responder: `cancelWhen` for runSendNode, `fire` to cancel. */
export function cancelOn(): { cancelWhen: Promise<void>; fire: () => void } {
	let fire!: () => void;
	const cancelWhen = new Promise<void>((resolve) => (fire = resolve));
	return { cancelWhen, fire };
}

export const SOURCE_NODE = 'Rows';
export const SEND_NODE = 'Template Message';
export const TEST_TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0ZXN0LWFjY291bnQifQ.c2lnbmF0dXJlLWZvci10ZXN0cw';

/** A two-node workflow: pinned rows → Template Message, run in the engine. */
export async function runSendNode(options: SendNodeRun): Promise<RunResult> {
	const sendNode: INode = {
		id: 'send',
		name: SEND_NODE,
		type: NODE_TYPE,
		typeVersion: options.typeVersion ?? 1,
		position: [200, 0],
		parameters: options.parameters as INode['parameters'],
		credentials: { [CREDENTIAL_TYPE]: { id: 'cred-1', name: 'Template Message account' } },
		onError: options.onError,
		retryOnFail: options.retryOnFail,
		maxTries: options.maxTries,
		waitBetweenTries: options.waitBetweenTries,
	};
	return await runWorkflow(
		{
			nodes: [
				{ id: 'rows', name: SOURCE_NODE, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				sendNode,
			],
			connections: { [SOURCE_NODE]: { main: [[{ node: SEND_NODE, type: 'main', index: 0 }]] } },
			pinData: { [SOURCE_NODE]: options.items.map((json) => ({ json })) },
		},
		{ [CREDENTIAL_TYPE]: { baseUrl: options.baseUrl, token: options.token ?? TEST_TOKEN } },
		{},
		options.cancelWhen,
		options.workflowId,
	);
}
