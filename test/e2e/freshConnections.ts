import http from 'node:http';
import axios from 'axios';

/**
 * Every request of the suite on a connection of its own. Node's default agent keeps connections
 * alive and n8n closes an idle one after 5 s: on a loaded machine, reading a large answer (the node
 * types list is megabytes) can take that long, and the next request went out on the connection n8n
 * was closing ("socket hang up").
 */
axios.defaults.httpAgent = new http.Agent({ keepAlive: false });
