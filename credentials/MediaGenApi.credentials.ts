import type {
	IAuthenticateGeneric,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class MediaGenApi implements ICredentialType {
	name = 'mediaGenApi';

	displayName = 'MediaGen API';

	icon: Icon = { light: 'file:../icons/mediaGen.svg', dark: 'file:../icons/mediaGen.dark.svg' };

	documentationUrl = 'https://github.com/n8n-nodes-mediagen/n8n-nodes-mediagen#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description: 'Sent as the raw value of the Authorization header, without any scheme prefix',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'https://api.example.com',
			description:
				'Root address of the API, without the /v1 path prefix. A trailing slash is ignored.',
		},
	];

	// The API takes the key itself as the header value: no "Bearer" prefix.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '={{$credentials.apiKey}}',
			},
		},
	};

	// Querying a task id that cannot exist is free and changes nothing. A wrong key is refused
	// with an HTTP error (401 on the simulator), which fails the test with the API's message.
	// A right key gets HTTP 200 (with a "task not found" envelope), which passes.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '/v1/tlimages/infobytaskid',
			method: 'POST',
			body: { taskid: 'n8n-credential-test' },
			json: true,
			// A redirect fails the test instead of carrying the key to wherever it points.
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
		},
	};
}
