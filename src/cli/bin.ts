import { main } from './main';

// Exit through process.exitCode so pending stdout is flushed.
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
