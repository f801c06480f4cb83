console.log('agent-fix: not yet wired');
