/** The start-up reference: the least a JVM does to print a line. */
public class Hello {
    public static void main(String[] args) {
        System.out.println("hello");
    }
}
