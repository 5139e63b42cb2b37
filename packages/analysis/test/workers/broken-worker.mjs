// A stand-in parse worker that fails while loading, as a worker whose modules are missing does.
throw new Error('cannot load the parser');
