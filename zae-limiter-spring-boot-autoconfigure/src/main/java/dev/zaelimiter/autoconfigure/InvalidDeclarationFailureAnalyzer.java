package dev.zaelimiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a bad limit declaration into a startup report that names the property and what to write. */
class InvalidDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDeclarationException cause) {
        return new FailureAnalysis(
                "The rate limit declaration '" + cause.property() + "' is invalid: " + cause.reason(),
                "Update '" + cause.property() + "' in your application configuration as described above.", cause);
    }
}
