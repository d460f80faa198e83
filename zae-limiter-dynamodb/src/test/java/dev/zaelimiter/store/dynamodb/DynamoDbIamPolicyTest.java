package dev.zaelimiter.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.MutableClock;

import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.UpdateTimeToLiveRequest;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Keeps the IAM policy and the CloudFormation template of docs/dynamodb.md true: the store's whole contract suite, a
 * table creation and a transactional cascade run on a client that records the IAM action of every request, and the
 * policy must grant exactly what was recorded; the template must make the table the store makes.
 */
class DynamoDbIamPolicyTest {

    private static final Path DOCS = Path.of("..", "docs");
    private static final String TABLE_ARN = "arn:aws:dynamodb:REGION:ACCOUNT:table/TABLE";
    private static final String INDEX_ARN = TABLE_ARN + "/index/" + Keys.GSI1;

    private static Set<String> onTable;
    private static Set<String> onIndex;
    private static Set<String> inTransaction;
    private static Set<String> creatingTable;
    private static CreateTableRequest createTable;
    private static UpdateTimeToLiveRequest timeToLive;

    @BeforeAll
    static void recordTheStoresRequests() {
        IamActions recorder = IamActions.RECORDER;
        List<Class<?>> suite = contractClasses();
        suite.forEach(DynamoDbTestStores::table);           // their tables exist before recording starts
        recorder.clear();
        runContractSuite(suite);
        onTable = recorder.onTable();
        onIndex = recorder.onIndex();

        recorder.clear();
        DynamoDbStore.builder().client(DynamoDbTestStores.client()).table("t-iam-created").build()
                .createTableIfMissing();
        creatingTable = recorder.onTable();
        createTable = recorder.lastCreateTable();
        timeToLive = recorder.lastTimeToLive();

        recorder.clear();
        inTransaction = transactionalCascade();
    }

    /** Every store contract class, on dynalite; the LocalStack variant needs Docker and records nothing here. */
    private static void runContractSuite(List<Class<?>> suite) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(suite.stream().map(c -> selectClass(c)).toList()).build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        launcher.execute(request, summary);
        TestExecutionSummary result = summary.getSummary();
        assertThat(result.getTestsSucceededCount()).as("contract tests run").isGreaterThan(100);
        assertThat(result.getTotalFailureCount()).as("contract tests failed while recording").isZero();
    }

    private static List<Class<?>> contractClasses() {
        Path dir = Path.of("src", "test", "java", "dev", "zaelimiter", "store", "dynamodb");
        List<Class<?>> classes = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                if (name.startsWith("DynamoDb") && name.endsWith("ContractTest") && !name.contains("LocalStack")) {
                    classes.add(Class.forName(DynamoDbIamPolicyTest.class.getPackageName() + "." + name));
                }
            }
        } catch (IOException | ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        assertThat(classes).hasSizeGreaterThan(10);
        return classes;
    }

    /** The test server has no transactions: the request is recorded before the server refuses it. */
    private static Set<String> transactionalCascade() {
        MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
        DynamoDbStore store = DynamoDbTestStores.builder(DynamoDbIamPolicyTest.class, clock)
                .cascadeWrite(CascadeWrite.TRANSACTIONAL).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().createEntity(Entity.of("org"));
        limiter.admin().createEntity(Entity.of("user").withParent("org").withCascade(true));
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 10)));
        IamActions.RECORDER.clear();
        catchThrowable(() -> limiter.acquire("user", "api", Map.of("rpm", 1L)).close());
        return IamActions.RECORDER.onTable();
    }

    @Test
    void theRuntimePolicyGrantsExactlyWhatTheContractSuiteCalls() {
        Map<String, Set<String>> policy = policy(docsBlock("runtime"));

        assertThat(policy.get(TABLE_ARN)).as("actions on the table").isEqualTo(onTable);
        assertThat(policy.get(INDEX_ARN)).as("actions on the index").isEqualTo(onIndex);
        assertThat(policy.keySet()).containsExactlyInAnyOrder(TABLE_ARN, INDEX_ARN);
    }

    @Test
    void creatingTheTableNeedsExactlyTheSecondStatement() {
        Map<String, Set<String>> policy = policy(docsBlock("create-table"));

        assertThat(policy).containsOnlyKeys(TABLE_ARN);
        assertThat(policy.get(TABLE_ARN)).isEqualTo(creatingTable)
                .contains("dynamodb:CreateTable", "dynamodb:UpdateTimeToLive");
    }

    @Test
    void aTransactionalCascadeNeedsNothingBeyondTheRuntimePolicy() {
        assertThat(inTransaction).as("item actions of TransactWriteItems").contains("dynamodb:UpdateItem");
        assertThat(policy(docsBlock("runtime")).get(TABLE_ARN)).containsAll(inTransaction);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theTemplatesTableIsTheOneTheStoreCreates() throws IOException {
        Map<String, Object> table = (Map<String, Object>) property(template(), "LimiterTable");

        assertThat(table.get("BillingMode")).isEqualTo(createTable.billingModeAsString());
        assertThat(table.get("AttributeDefinitions")).isEqualTo(createTable.attributeDefinitions().stream()
                .map(DynamoDbIamPolicyTest::attribute).toList());
        assertThat(table.get("KeySchema")).isEqualTo(keys(createTable.keySchema()));
        assertThat(createTable.globalSecondaryIndexes()).hasSize(1);
        GlobalSecondaryIndex index = createTable.globalSecondaryIndexes().get(0);
        assertThat(table.get("GlobalSecondaryIndexes")).isEqualTo(List.of(Map.of(
                "IndexName", index.indexName(),
                "KeySchema", keys(index.keySchema()),
                "Projection", Map.of("ProjectionType", index.projection().projectionTypeAsString()))));
        assertThat(table.get("TimeToLiveSpecification")).isEqualTo(Map.of(
                "AttributeName", timeToLive.timeToLiveSpecification().attributeName(),
                "Enabled", timeToLive.timeToLiveSpecification().enabled()));
    }

    @Test
    @SuppressWarnings("unchecked")
    void theTemplatesPolicyIsTheRuntimePolicy() throws IOException {
        Map<String, Object> document = (Map<String, Object>) ((Map<String, Object>) property(template(),
                "LimiterPolicy")).get("PolicyDocument");
        Map<String, Set<String>> granted = new java.util.HashMap<>();
        for (Map<String, Object> statement : (List<Map<String, Object>>) document.get("Statement")) {
            assertThat(statement.get("Effect")).isEqualTo("Allow");
            String resource = switch (String.valueOf(statement.get("Resource"))) {
                case "!GetAtt LimiterTable.Arn" -> TABLE_ARN;
                case "!Sub ${LimiterTable.Arn}/index/GSI1" -> INDEX_ARN;
                default -> throw new AssertionError("unexpected resource " + statement.get("Resource"));
            };
            granted.put(resource, new TreeSet<>((List<String>) statement.get("Action")));
        }

        assertThat(granted).isEqualTo(policy(docsBlock("runtime")));
    }

    @SuppressWarnings("unchecked")
    private static Object property(Map<String, Object> template, String resource) {
        return ((Map<String, Object>) ((Map<String, Object>) template.get("Resources")).get(resource))
                .get("Properties");
    }

    private static Map<String, Object> template() throws IOException {
        return new Yaml(new CloudFormationTags()).load(Files.readString(DOCS.resolve("dynamodb-table.cfn.yaml")));
    }

    private static Map<String, String> attribute(AttributeDefinition a) {
        return Map.of("AttributeName", a.attributeName(), "AttributeType", a.attributeTypeAsString());
    }

    private static List<Map<String, String>> keys(List<KeySchemaElement> schema) {
        return schema.stream().map(k -> Map.of("AttributeName", k.attributeName(), "KeyType", k.keyTypeAsString()))
                .toList();
    }

    /** The JSON block of docs/dynamodb.md that follows {@code <!-- iam: name -->}. */
    private static String docsBlock(String name) {
        try {
            String page = Files.readString(DOCS.resolve("dynamodb.md"));
            Matcher block = Pattern.compile("<!-- iam: " + Pattern.quote(name) + " -->\\s*```json\\n(.*?)```",
                    Pattern.DOTALL).matcher(page);
            assertThat(block.find()).as("docs/dynamodb.md has the '%s' policy", name).isTrue();
            return block.group(1);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Resource to the actions granted on it, from a policy document (JSON is YAML). */
    @SuppressWarnings("unchecked")
    private static Map<String, Set<String>> policy(String json) {
        Map<String, Object> document = new Yaml().load(json);
        Map<String, Set<String>> granted = new java.util.HashMap<>();
        for (Map<String, Object> statement : (List<Map<String, Object>>) document.get("Statement")) {
            assertThat(statement.get("Effect")).isEqualTo("Allow");
            granted.computeIfAbsent((String) statement.get("Resource"), r -> new TreeSet<>())
                    .addAll((List<String>) statement.get("Action"));
        }
        return granted;
    }

    /** Reads CloudFormation's short forms ({@code !Ref}, {@code !GetAtt}, {@code !Sub}) as their text. */
    private static final class CloudFormationTags extends SafeConstructor {

        CloudFormationTags() {
            super(new LoaderOptions());
            for (String tag : List.of("!Ref", "!GetAtt", "!Sub")) {
                yamlConstructors.put(new Tag(tag), new AbstractConstruct() {
                    @Override
                    public Object construct(Node node) {
                        return tag + " " + ((ScalarNode) node).getValue();
                    }
                });
            }
        }
    }
}
