// The last step of `npm run build`: dist/hook/ (tsconfig.hook.json) holds CommonJS in a package
// whose files are ES modules, so it says so in a package.json of its own.
import { writeFileSync } from 'node:fs';

writeFileSync(new URL('../dist/hook/package.json', import.meta.url), '{ "type": "commonjs" }\n');
