/** The names of the node's fields as the editor shows them: error messages start with one. */
export const FIELD = {
	templateCodeId: 'Template Code ID',
	bodyValues: 'Body Values',
	headerType: 'Header Type',
	headerText: 'Header Text',
	headerMediaUrl: 'Header Media URL',
	buttons: 'Buttons',
	rawPayload: 'Payload (JSON)',
	templateBody: 'Template → Body Text',
	templateHeader: 'Template → Header',
	templateHeaderText: 'Template → Header Text',
	templateButtons: 'Template → Buttons',
} as const;
