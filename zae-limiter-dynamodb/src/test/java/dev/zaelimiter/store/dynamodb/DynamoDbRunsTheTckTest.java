package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.contract.TckContracts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The DynamoDB store runs every contract class of the store TCK, each in a {@code DynamoDb*ContractTest}. */
class DynamoDbRunsTheTckTest {

    @Test
    void everyContractClassHasADynamoDbRun() throws Exception {
        assertThat(TckContracts.names()).hasSizeGreaterThanOrEqualTo(15);
        assertThat(TckContracts.notRunBy("dev.zaelimiter.store.dynamodb.DynamoDb"))
                .as("contract classes without a DynamoDb*ContractTest").isEmpty();
    }
}
