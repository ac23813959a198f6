/** The footprint reference: a JVM that only waits, so its resident memory is the JVM's own. */
public class Idle {
    public static void main(String[] args) throws InterruptedException {
        System.out.println("idle");
        Thread.sleep(Long.parseLong(args.length > 0 ? args[0] : "60000"));
    }
}
