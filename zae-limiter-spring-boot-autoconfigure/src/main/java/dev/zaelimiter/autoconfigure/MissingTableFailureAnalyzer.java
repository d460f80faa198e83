package dev.zaelimiter.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a missing DynamoDB table into a startup report that names the table and the properties to set. */
class MissingTableFailureAnalyzer extends AbstractFailureAnalyzer<MissingTableException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingTableException cause) {
        return new FailureAnalysis(
                "zae-limiter's DynamoDB table '" + cause.table() + "' does not exist, as seen by the application's"
                        + " DynamoDbClient (its region and endpoint), and " + MissingTableException.CREATE_PROPERTY
                        + " is false. Without it every rate-limited call would fail, or be admitted unrecorded"
                        + " with on-unavailable=allow.",
                "Correct " + MissingTableException.TABLE_PROPERTY + " (or the client's region), create the table"
                        + " (its layout is in docs/dynamodb.md), or set " + MissingTableException.CREATE_PROPERTY
                        + "=true to let the application create it at startup.", cause);
    }
}
